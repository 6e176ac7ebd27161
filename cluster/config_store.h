// ConfigStore: where the cluster configuration <id, members, failure domains, CM> lives (FaRM §3
// and §5.2). A new configuration is installed only by compare-and-swap on the configuration id,
// so at most one machine moves the cluster from configuration c to c + 1.
//
// EmbeddedConfigStore is the single-node store: a text file replaced atomically (write a temp
// file, fsync, rename). Thread-safe within one process; not for several processes sharing the
// file. ZooKeeperConfigStore (zookeeper.h) is the store of multi-process clusters.
//
// Not used by Machine yet: membership is fixed at start until reconfiguration (a later issue).
#pragma once

#include <expected>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/types.h"

namespace farmdb::cluster {

struct Configuration {
  uint64_t id = 0;  // monotonically increasing; 0 means "none"
  struct Member {
    MachineId machine;
    uint32_t failure_domain;
    // The registration a multi-process member joined through (ZooKeeperCluster::Register);
    // empty in a single process.
    std::string node = {};
    friend bool operator==(const Member&, const Member&) = default;
  };
  std::vector<Member> members;
  MachineId cm = kNoMachine;
  friend bool operator==(const Configuration&, const Configuration&) = default;
};

// The text both stores keep (FORMATS.md "Configuration store"). Decoding refuses damage and
// other formats with a message saying what is wrong.
std::string EncodeConfiguration(const Configuration& c);
std::expected<Configuration, std::string> DecodeConfiguration(std::string_view text);

class ConfigStore {
 public:
  virtual ~ConfigStore() = default;
  // The stored configuration, or nullopt if none was ever stored.
  virtual std::expected<std::optional<Configuration>, std::string> Read() = 0;
  // Stores `next` iff the stored id equals expected_id (0: nothing stored). Returns false when
  // another configuration won. REQUIRES: next.id > expected_id.
  virtual std::expected<bool, std::string> CompareAndSwap(uint64_t expected_id,
                                                          const Configuration& next) = 0;
};

class EmbeddedConfigStore final : public ConfigStore {
 public:
  explicit EmbeddedConfigStore(std::filesystem::path file) : file_(std::move(file)) {}
  std::expected<std::optional<Configuration>, std::string> Read() override;
  std::expected<bool, std::string> CompareAndSwap(uint64_t expected_id,
                                                  const Configuration& next) override;

 private:
  std::expected<std::optional<Configuration>, std::string> ReadLocked();
  std::filesystem::path file_;
  std::mutex mu_;
};

}  // namespace farmdb::cluster
