#include "cluster/zookeeper.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "cluster/test_zookeeper.h"

namespace farmdb::cluster {
namespace {

std::unique_ptr<ZooKeeperSession> Connect(const std::string& hosts) {
  auto s = ZooKeeperSession::Connect({.hosts = hosts});
  if (!s) ADD_FAILURE() << s.error().message;
  return s ? std::move(*s) : nullptr;
}

Configuration Config(uint64_t id, MachineId cm) { return {id, {{0, 0}, {1, 1}, {2, 2}}, cm}; }

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
