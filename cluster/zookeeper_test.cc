#include "cluster/zookeeper.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "cluster/test_zookeeper.h"
#include "cluster/zookeeper_cluster.h"

namespace farmdb::cluster {
namespace {

std::unique_ptr<ZooKeeperSession> Connect(const std::string& hosts) {
  auto s = ZooKeeperSession::Connect({.hosts = hosts});
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? std::move(*s) : nullptr;
}

// Members with and without the registration they joined through.
Configuration Config(uint64_t id, MachineId cm) {
  return {id, {{0, 0, "n0000000000"}, {1, 1, "n0000000001"}, {2, 2, ""}}, cm};
}

TEST(ZooKeeperSessionTest, CreatesReadsSetsAtAVersionAndLists) {
  auto zk = Connect(TestZooKeeper::FreshChroot());
  ASSERT_TRUE(zk);
  EXPECT_EQ(zk->Get("/a").value(), std::nullopt);
  EXPECT_TRUE(zk->Create("/a", "one").value());
  EXPECT_FALSE(zk->Create("/a", "two").value());  // there already
  auto a = zk->Get("/a").value();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->data, "one");
  EXPECT_FALSE(zk->Set("/a", "stale", a->version + 1).value());
  EXPECT_TRUE(zk->Set("/a", "three", a->version).value());
  EXPECT_FALSE(zk->Set("/a", "again", a->version).value());  // the version moved on
  EXPECT_EQ(zk->Get("/a").value()->data, "three");
  EXPECT_FALSE(zk->Create("/missing/child", "").has_value());  // no parent

  // Data larger than the first read's buffer comes back whole.
  std::string big(100'000, 'x');
  ASSERT_TRUE(zk->Set("/a", big, -1).value());
  EXPECT_EQ(zk->Get("/a").value()->data, big);

  ASSERT_TRUE(zk->CreatePath("/b/c/d").has_value());
  ASSERT_TRUE(zk->CreatePath("/b/c/d").has_value());  // all there: nothing to do
  std::string first, second;
  ASSERT_TRUE(zk->Create("/b/m", "", true, &first).value());
  ASSERT_TRUE(zk->Create("/b/m", "", true, &second).value());
  EXPECT_EQ(first, "/b/m0000000001");  // after c, the parent's first child
  EXPECT_EQ(second, "/b/m0000000002");
  EXPECT_EQ(zk->Children("/b").value(),
            (std::vector<std::string>{"c", "m0000000001", "m0000000002"}));
  EXPECT_TRUE(zk->Children("/nothing").value().empty());

  ASSERT_TRUE(zk->DeleteTree("/b").has_value());
  EXPECT_EQ(zk->Get("/b").value(), std::nullopt);
  EXPECT_TRUE(zk->DeleteTree("/b").has_value());  // gone already
}

TEST(ZooKeeperSessionTest, AChrootIsCreatedAndConfinesTheSession) {
  std::string chroot = TestZooKeeper::FreshChroot();
  auto inside = Connect(chroot);
  ASSERT_TRUE(inside);
  ASSERT_TRUE(inside->Create("/x", "in").value());
  auto outside = Connect(TestZooKeeper::Address());
  ASSERT_TRUE(outside);
  std::string path = chroot.substr(chroot.find('/'));
  EXPECT_EQ(outside->Get(path + "/x").value()->data, "in");
  EXPECT_EQ(outside->Get("/x").value(), std::nullopt);
}

TEST(ZooKeeperSessionTest, AnExpiredSessionIsRenewedByTheNextRequest) {
  // A short session: the client may take the whole timeout to learn that it expired.
  auto session = ZooKeeperSession::Connect(
      {.hosts = TestZooKeeper::FreshChroot(), .session_timeout = std::chrono::milliseconds(2000)});
  ASSERT_TRUE(session.has_value()) << session.error().message;
  auto& zk = *session;
  ASSERT_TRUE(zk->Create("/a", "kept").value());
  zk->ExpireForTest();
  auto a = zk->Get("/a");
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_EQ((*a)->data, "kept");
  EXPECT_TRUE(zk->Create("/b", "").value());
}

TEST(ZooKeeperSessionTest, NoServerIsAnErrorSayingSo) {
  // A port nothing listens on: bound here, never listened on.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string hosts = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto s = ZooKeeperSession::Connect({.hosts = hosts, .connect_timeout = std::chrono::milliseconds(300)});
  ::close(fd);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().message, "zookeeper " + hosts + ": no server answered within 300 ms");
}

TEST(ZooKeeperConfigStoreTest, CompareAndSwapOnIdAcrossSessions) {
  std::string chroot = TestZooKeeper::FreshChroot();
  auto zk = Connect(chroot);
  ASSERT_TRUE(zk);
  ZooKeeperConfigStore s(zk.get(), "/cluster/configuration");
  EXPECT_EQ(s.Read().value(), std::nullopt);
  EXPECT_FALSE(s.CompareAndSwap(1, Config(2, 0)).value());  // nothing stored yet
  EXPECT_TRUE(s.CompareAndSwap(0, Config(1, 0)).value());   // creates the parent too
  EXPECT_FALSE(s.CompareAndSwap(0, Config(1, 1)).value());  // lost the race
  EXPECT_TRUE(s.CompareAndSwap(1, Config(2, 1)).value());
  EXPECT_FALSE(s.CompareAndSwap(1, Config(3, 2)).value());  // stale
  EXPECT_FALSE(s.CompareAndSwap(2, Config(2, 1)).has_value());  // ids must grow

  auto other = Connect(chroot);
  ASSERT_TRUE(other);
  ZooKeeperConfigStore again(other.get(), "/cluster/configuration");
  EXPECT_EQ(again.Read().value(), Config(2, 1));
  // The znode holds the embedded store's text.
  EXPECT_EQ(other->Get("/cluster/configuration").value()->data, EncodeConfiguration(Config(2, 1)));
}

// Sessions that read the same configuration and swap at once: exactly one wins each round, and
// the losers see the winner's configuration.
TEST(ZooKeeperConfigStoreTest, ConcurrentSwapsFromOneConfigurationHaveOneWinner) {
  std::string chroot = TestZooKeeper::FreshChroot();
  constexpr int kSessions = 4;
  std::vector<std::unique_ptr<ZooKeeperSession>> sessions;
  std::vector<std::unique_ptr<ZooKeeperConfigStore>> stores;
  for (int i = 0; i < kSessions; ++i) {
    sessions.push_back(Connect(chroot));
    ASSERT_TRUE(sessions.back());
    stores.push_back(std::make_unique<ZooKeeperConfigStore>(sessions.back().get(), "/configuration"));
  }
  ASSERT_TRUE(stores[0]->CompareAndSwap(0, Config(1, 0)).value());
  for (uint64_t round = 1; round <= 20; ++round) {
    std::atomic<int> winners{0};
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < kSessions; ++i) {
      threads.emplace_back([&, i] {
        auto won = stores[i]->CompareAndSwap(round, Config(round + 1, static_cast<MachineId>(i)));
        if (!won) ++errors;
        else if (*won) ++winners;
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(errors.load(), 0);
    ASSERT_EQ(winners.load(), 1) << "round " << round;
    auto now = stores[kSessions - 1]->Read().value();
    ASSERT_TRUE(now);
    EXPECT_EQ(now->id, round + 1);
  }
}

TEST(ZooKeeperConfigStoreTest, ADamagedZnodeIsAnErrorNamingIt) {
  auto zk = Connect(TestZooKeeper::FreshChroot());
  ASSERT_TRUE(zk);
  ASSERT_TRUE(zk->Create("/configuration", "farmdb-config 1\nid 3\ncm 0\n").value());  // no end
  ZooKeeperConfigStore s(zk.get(), "/configuration");
  auto read = s.Read();
  ASSERT_FALSE(read.has_value());
  EXPECT_NE(read.error().find("znode /configuration: truncated config"), std::string::npos) << read.error();
  EXPECT_FALSE(s.CompareAndSwap(3, Config(4, 0)).has_value());
}

}  // namespace
}  // namespace farmdb::cluster

namespace farmdb::cluster {
namespace {

TEST(ZooKeeperClusterTest, TheCreatorFixesTheSettingsAndJoinersMustAgree) {
  auto zk = Connect(TestZooKeeper::FreshChroot());
  ASSERT_TRUE(zk);
  ZooKeeperCluster c(zk.get(), "c1");
  ClusterSettings wanted{.replicas = 3, .region_size = 1 << 20, .log_size = 1 << 20, .secret = ""};
  auto created = c.CreateOrJoin(wanted);
  ASSERT_TRUE(created.has_value()) << created.error();
  EXPECT_EQ(created->secret.size(), 64u);  // generated: 32 random bytes in hex
  auto joined = c.CreateOrJoin(wanted);
  ASSERT_TRUE(joined.has_value()) << joined.error();
  EXPECT_EQ(joined->secret, created->secret);  // read from the cluster's znode

  ClusterSettings fewer = wanted;
  fewer.replicas = 2;
  EXPECT_EQ(c.CreateOrJoin(fewer).error(), "farmdb.replicas is 3 in cluster \"c1\"; this node asks for 2");
  ClusterSettings bigger = wanted;
  bigger.region_size = 2 << 20;
  EXPECT_EQ(c.CreateOrJoin(bigger).error(),
            "the region size is 1048576 in cluster \"c1\"; this node asks for 2097152");
  ClusterSettings stranger = wanted;
  stranger.secret = "not-it";
  EXPECT_EQ(c.CreateOrJoin(stranger).error(), "farmdb.cluster_secret differs from cluster \"c1\"'s");
  ClusterSettings given = wanted;
  given.secret = created->secret;
  EXPECT_TRUE(c.CreateOrJoin(given).has_value());

  ZooKeeperCluster bad(zk.get(), "a/b");
  EXPECT_FALSE(bad.CreateOrJoin(wanted).has_value());
}

// Nodes that start at the same moment form one configuration: every node registered by then,
// in registration order, the first the CM. A node registering later is no member of it.
TEST(ZooKeeperClusterTest, NodesStartingTogetherFormOneConfiguration) {
  std::string chroot = TestZooKeeper::FreshChroot();
  constexpr int kNodes = 3;
  std::vector<std::unique_ptr<ZooKeeperSession>> sessions;
  for (int i = 0; i <= kNodes; ++i) {
    sessions.push_back(Connect(chroot));
    ASSERT_TRUE(sessions.back());
  }
  ClusterSettings settings{.replicas = kNodes, .region_size = 1 << 20, .log_size = 1 << 20, .secret = "s"};
  std::vector<std::string> names(kNodes);
  std::vector<std::expected<Configuration, std::string>> formed(kNodes, std::unexpected("not run"));
  std::atomic<int> waits{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kNodes; ++i) {
    threads.emplace_back([&, i] {
      ZooKeeperCluster c(sessions[i].get(), "c");
      ASSERT_TRUE(c.CreateOrJoin(settings).has_value());
      // The first starts alone and waits for the others.
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      names[i] = c.Register("127.0.0.1:" + std::to_string(7000 + i)).value();
      formed[i] = c.FormOrRead(kNodes, std::chrono::seconds(20), [&](const std::string&) { ++waits; });
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_GE(waits.load(), 1);
  ASSERT_TRUE(formed[0].has_value()) << formed[0].error();
  const Configuration& c = *formed[0];
  for (auto& f : formed) EXPECT_EQ(f.value(), c);
  EXPECT_EQ(c.id, 1u);
  EXPECT_EQ(c.cm, 0u);
  ASSERT_EQ(c.members.size(), 3u);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  for (MachineId m = 0; m < kNodes; ++m) {
    EXPECT_EQ(c.members[m].machine, m);
    EXPECT_EQ(c.members[m].node, sorted[m]);
  }
  EXPECT_EQ(sorted[0], names[0]);  // the first to register is machine 0, the CM

  ZooKeeperCluster late(sessions[kNodes].get(), "c");
  std::string late_name = late.Register("127.0.0.1:7999").value();
  auto read = late.FormOrRead(kNodes, std::chrono::seconds(5), [](const std::string&) {});
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, c);
  auto addresses = late.FabricAddresses(c).value();
  ASSERT_EQ(addresses.size(), 3u);
  for (MachineId m = 0; m < kNodes; ++m) {
    auto i = std::find(names.begin(), names.end(), c.members[m].node) - names.begin();
    EXPECT_EQ(addresses[m], "127.0.0.1:" + std::to_string(7000 + i));
  }
}

TEST(ZooKeeperClusterTest, TooFewNodesWaitSayingWhatFor) {
  auto zk = Connect(TestZooKeeper::FreshChroot());
  ASSERT_TRUE(zk);
  ZooKeeperCluster c(zk.get(), "c");
  ASSERT_TRUE(c.Register("127.0.0.1:1").has_value());
  std::vector<std::string> said;
  auto formed = c.FormOrRead(3, std::chrono::milliseconds(1500), [&](const std::string& s) { said.push_back(s); });
  ASSERT_FALSE(formed.has_value());
  EXPECT_EQ(formed.error(), "gave up after 1500 ms waiting for the cluster to form");
  ASSERT_GE(said.size(), 1u);
  EXPECT_EQ(said[0], "cluster \"c\" has 1 of the 3 nodes it needs to place regions with farmdb.replicas=3");
  EXPECT_EQ(c.configuration().Read().value(), std::nullopt);
}

TEST(ZooKeeperClusterTest, TheStartBarrierWaitsForEveryMember) {
  std::string chroot = TestZooKeeper::FreshChroot();
  auto a = Connect(chroot);
  auto b = Connect(chroot);
  ASSERT_TRUE(a && b);
  Configuration c{.id = 4, .members = {{0, 0, "n0"}, {1, 1, "n1"}}, .cm = 0};
  ZooKeeperCluster ca(a.get(), "c");
  ZooKeeperCluster cb(b.get(), "c");
  auto alone = ca.PassStartBarrier(c, 0, std::chrono::milliseconds(300));
  ASSERT_FALSE(alone.has_value());
  EXPECT_EQ(alone.error(), "gave up after 300 ms waiting for every member to be ready");
  std::expected<void, std::string> first;
  std::thread t([&] { first = ca.PassStartBarrier(c, 0, std::chrono::seconds(10)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(cb.PassStartBarrier(c, 1, std::chrono::seconds(10)).has_value());
  t.join();
  EXPECT_TRUE(first.has_value()) << first.error();
}

// A whole-cluster restart: members wait, saying so, until every member of the configuration
// restarted; then the CM moves the cluster to the next configuration with the same members, and
// everyone learns it, the members' new fabric addresses and the CM's note.
TEST(ZooKeeperClusterTest, ARestartWaitsForEveryMemberThenTheCmMovesToTheNextConfiguration) {
  std::string chroot = TestZooKeeper::FreshChroot();
  constexpr int kNodes = 3;
  std::vector<std::unique_ptr<ZooKeeperSession>> sessions;
  std::vector<std::unique_ptr<ZooKeeperCluster>> clusters;
  for (int i = 0; i < kNodes; ++i) {
    sessions.push_back(Connect(chroot));
    ASSERT_TRUE(sessions.back());
    clusters.push_back(std::make_unique<ZooKeeperCluster>(sessions.back().get(), "c"));
    ASSERT_TRUE(clusters.back()->CreateOrJoin({.replicas = kNodes, .secret = "s"}).has_value());
    ASSERT_TRUE(clusters.back()->Register("127.0.0.1:" + std::to_string(7000 + i)).has_value());
  }
  const Configuration first = clusters[0]->FormOrRead(kNodes, std::chrono::seconds(10), [](auto&) {}).value();
  ASSERT_EQ(first.id, 1u);

  // Machine 1 restarts alone: it waits, saying for what, and nothing moves.
  std::vector<std::string> said;
  auto alone = clusters[1]->Restart(first, 1, "", std::chrono::milliseconds(1500),
                                    [&](const std::string& s) { said.push_back(s); });
  ASSERT_FALSE(alone.has_value());
  EXPECT_EQ(alone.error(), "gave up after 1500 ms waiting for every member to restart");
  ASSERT_GE(said.size(), 1u);
  EXPECT_EQ(said[0], "cluster \"c\" has 1 of its 3 members restarted; a member recovers only with every member's log");
  EXPECT_EQ(clusters[0]->configuration().Read().value()->id, 1u);

  std::vector<std::expected<ZooKeeperCluster::Restarted, std::string>> got(kNodes, std::unexpected(""));
  std::vector<std::thread> threads;
  for (int i = kNodes - 1; i >= 0; --i) {  // the CM last
    const MachineId m = static_cast<MachineId>(i);
    const std::string& node = first.members[m].node;
    ASSERT_TRUE(clusters[i]->UpdateRegistration(node, "127.0.0.1:" + std::to_string(8000 + i)).has_value());
    threads.emplace_back([&, i, m] {
      got[i] = clusters[i]->Restart(first, m, m == 0 ? "next_region 5" : "", std::chrono::seconds(20), [](auto&) {});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kNodes; ++i) {
    ASSERT_TRUE(got[i].has_value()) << got[i].error();
    EXPECT_EQ(got[i]->configuration.id, 2u);
    EXPECT_EQ(got[i]->configuration.members, first.members);
    EXPECT_EQ(got[i]->configuration.cm, first.cm);
    EXPECT_EQ(got[i]->notes, (std::vector<std::string>{"next_region 5", "", ""}));
  }
  auto addresses = clusters[2]->FabricAddresses(got[2]->configuration).value();
  EXPECT_EQ(addresses, (std::vector<std::string>{"127.0.0.1:8000", "127.0.0.1:8001", "127.0.0.1:8002"}));
}

TEST(ZooKeeperClusterTest, TheCatalogRootIsPublishedOnceAndAwaited) {
  std::string chroot = TestZooKeeper::FreshChroot();
  auto a = Connect(chroot);
  auto b = Connect(chroot);
  ASSERT_TRUE(a && b);
  ZooKeeperCluster ca(a.get(), "c");
  ZooKeeperCluster cb(b.get(), "c");
  ASSERT_TRUE(ca.CreateOrJoin({.replicas = 1, .secret = "s"}).has_value());
  EXPECT_FALSE(cb.WaitForCatalogRoot(std::chrono::milliseconds(100)).has_value());
  std::expected<uint64_t, std::string> root = std::unexpected("");
  std::thread t([&] { root = cb.WaitForCatalogRoot(std::chrono::seconds(10)); });
  ASSERT_TRUE(ca.PublishCatalogRoot(0x1234'0000'0040).has_value());
  t.join();
  EXPECT_EQ(root.value(), 0x1234'0000'0040u);
  EXPECT_TRUE(ca.PublishCatalogRoot(0x1234'0000'0040).has_value());  // a restarted CM: the same root
  EXPECT_FALSE(ca.PublishCatalogRoot(7).has_value());                 // never another

  ASSERT_TRUE(ca.PublishSqlAddress(2, "127.0.0.1:5433").has_value());
  ASSERT_TRUE(ca.PublishSqlAddress(2, "127.0.0.1:5434").has_value());  // moved
  EXPECT_EQ(cb.SqlAddress(2).value(), "127.0.0.1:5434");
  EXPECT_EQ(cb.SqlAddress(1).value(), std::nullopt);
}

TEST(ZooKeeperClusterTest, SettingsRoundTripAndDamageIsNamed) {
  ClusterSettings s{.replicas = 2, .region_size = 4096, .log_size = 8192, .secret = "abc"};
  auto back = DecodeClusterSettings(EncodeClusterSettings(s));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->replicas, 2);
  EXPECT_EQ(back->region_size, 4096u);
  EXPECT_EQ(back->log_size, 8192u);
  EXPECT_EQ(back->secret, "abc");
  EXPECT_EQ(DecodeClusterSettings("farmdb-cluster 1\nreplicas 2\n").error(), "truncated cluster settings");
  EXPECT_EQ(DecodeClusterSettings("farmdb-cluster 1\nreplicas x\nend\n").error(),
            "malformed cluster settings line: replicas x");
  EXPECT_EQ(DecodeClusterSettings("other\n").error(), "bad cluster settings header");
}

}  // namespace
}  // namespace farmdb::cluster
