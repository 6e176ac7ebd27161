// ZooKeeperCluster: the znodes of one named multi-process cluster (FORMATS.md "ZooKeeper"):
// its settings, fixed by the node that created it; the nodes that registered to join, each
// with its fabric address; the configuration, which makes registered nodes members with
// machine ids; the catalog's root; and the start barrier every member passes before any sends
// commit traffic.
//
// Forming: a node registers, then waits until at least `replicas` nodes (f+1: a region and its
// backups on distinct machines) have registered. Any of them may then form the first
// configuration, by compare-and-swap: every registered node, machine ids in registration order,
// the first one the CM. One swap wins; the others read the winner's configuration.
//
// Thread-safe as its ZooKeeperSession is.
#pragma once

#include <chrono>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/lease.h"
#include "cluster/zookeeper.h"

namespace farmdb::cluster {

// What every node of a cluster must agree on, fixed when the cluster is created.
struct ClusterSettings {
  int replicas = 3;                    // farmdb.replicas: f + 1 copies of every region
  uint64_t region_size = 64ull << 20;  // bytes
  uint64_t log_size = 32ull << 20;     // each machine's log ring per sender, bytes
  // farmdb.lease_ms: grantor and holder must count the same lease (lease.h).
  std::chrono::milliseconds lease = kDefaultLease;
  std::string secret;                  // the fabric's shared secret (TcpFabricOptions::secret)
};

class ZooKeeperCluster {
 public:
  // The cluster `name` (letters, digits, '-', '_', '.'), under /farmdb/<name> of `session`.
  ZooKeeperCluster(ZooKeeperSession* session, std::string name);

  const std::string& name() const { return name_; }
  std::string Path() const { return "/farmdb/" + name_; }

  // Creates the cluster with `wanted` (a secret left empty is generated) or, if it exists,
  // checks that `wanted` agrees with it; returns the cluster's settings. A disagreement is an
  // error naming the setting ("farmdb.replicas is 3 in cluster "c"; this node asks for 2");
  // an empty wanted secret agrees with any.
  std::expected<ClusterSettings, std::string> CreateOrJoin(const ClusterSettings& wanted);

  // Registers a node that wants to join, reachable at `fabric_address`; returns its node name
  // (n0000000000, n0000000001, ... in registration order).
  std::expected<std::string, std::string> Register(const std::string& fabric_address);
  struct Registration {
    std::string node;
    std::string fabric_address;
  };
  // Every registered node, in registration order.
  std::expected<std::vector<Registration>, std::string> Registrations();

  ConfigStore& configuration() { return config_; }
  // Forms the first configuration once `replicas` nodes have registered, or reads the one that
  // is there; waits (polling every `poll`) until one of the two, at most `timeout`. `waiting`
  // is called, at most once a second, with what it waits for.
  std::expected<Configuration, std::string> FormOrRead(
      int replicas, std::chrono::milliseconds timeout,
      const std::function<void(const std::string&)>& waiting,
      std::chrono::milliseconds poll = std::chrono::milliseconds(50));

  // A registered node's new fabric address (a member that restarted listens anew).
  std::expected<void, std::string> UpdateRegistration(const std::string& node, const std::string& fabric_address);

  // A whole-cluster restart. Member `machine` of `c`, the configuration ZooKeeper holds,
  // restarted (and updated its registration); `note` is what it tells the others. The CM waits
  // until every member of `c` restarted, then swaps in configuration c.id + 1 with the same
  // members, in which the members' fabrics and start barrier then meet; the others wait for it,
  // logging what they wait for through `waiting` at most once a second. Returns that
  // configuration and every member's note, indexed by machine id.
  struct Restarted {
    Configuration configuration;
    std::vector<std::string> notes;
  };
  std::expected<Restarted, std::string> Restart(const Configuration& c, MachineId machine, const std::string& note,
                                                std::chrono::milliseconds timeout,
                                                const std::function<void(const std::string&)>& waiting);

  // The fabric address each member of `c` registered with, indexed by machine id.
  std::expected<std::vector<std::string>, std::string> FabricAddresses(const Configuration& c);
  // Publishes where `machine` serves SQL ("HOST:PORT"), for clients and farmctl.
  std::expected<void, std::string> PublishSqlAddress(MachineId machine, const std::string& address);
  std::expected<std::optional<std::string>, std::string> SqlAddress(MachineId machine);

  // Member `machine` of configuration `c` is ready (its log rings are registered); then waits
  // until every member is, at most `timeout`.
  std::expected<void, std::string> PassStartBarrier(const Configuration& c, MachineId machine,
                                                    std::chrono::milliseconds timeout);

  // The catalog's root object (txn::Addr bits), once the CM bootstrapped it; publishing the root
  // that is there already is not an error.
  std::expected<void, std::string> PublishCatalogRoot(uint64_t root);
  std::expected<uint64_t, std::string> WaitForCatalogRoot(std::chrono::milliseconds timeout);

 private:
  ZooKeeperSession* session_;
  std::string name_;
  ZooKeeperConfigStore config_;
};

// The settings znode's text (FORMATS.md), and back; decoding names what is wrong.
std::string EncodeClusterSettings(const ClusterSettings& s);
std::expected<ClusterSettings, std::string> DecodeClusterSettings(std::string_view text);

}  // namespace farmdb::cluster
