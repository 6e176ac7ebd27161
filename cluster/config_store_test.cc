#include "cluster/config_store.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "cluster/temp_dir.h"

namespace farmdb::cluster {
namespace {

Configuration Config(uint64_t id, MachineId cm) {
  return {id, {{0, 0}, {1, 1}, {2, 2}}, cm};
}

TEST(EmbeddedConfigStoreTest, CompareAndSwapOnIdAndPersistsAcrossInstances) {
  TempDir dir("config");
  auto file = dir.path / "config";
  {
    EmbeddedConfigStore s(file);
    EXPECT_EQ(s.Read().value(), std::nullopt);
    EXPECT_FALSE(s.CompareAndSwap(1, Config(2, 0)).value());  // nothing stored yet
    EXPECT_TRUE(s.CompareAndSwap(0, Config(1, 0)).value());
    EXPECT_FALSE(s.CompareAndSwap(0, Config(1, 1)).value());  // lost the race
    EXPECT_TRUE(s.CompareAndSwap(1, Config(2, 1)).value());
    EXPECT_FALSE(s.CompareAndSwap(2, Config(2, 1)).has_value());  // ids must grow
  }
  EmbeddedConfigStore again(file);
  EXPECT_EQ(again.Read().value(), Config(2, 1));
  EXPECT_FALSE(std::filesystem::exists(dir.path / "config.tmp"));
}

TEST(EmbeddedConfigStoreTest, ConcurrentSwapsFromOneConfigurationHaveOneWinner) {
  TempDir dir("config");
  EmbeddedConfigStore s(dir.path / "config");
  ASSERT_TRUE(s.CompareAndSwap(0, Config(1, 0)).value());
  std::atomic<int> winners{0};
  std::vector<std::thread> ts;
  for (MachineId m = 0; m < 3; ++m) {
    ts.emplace_back([&, m] { winners += s.CompareAndSwap(1, Config(2, m)).value() ? 1 : 0; });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(s.Read().value()->id, 2u);
}

TEST(EmbeddedConfigStoreTest, TruncatedOrForeignFileIsAnError) {
  TempDir dir("config");
  auto file = dir.path / "config";
  std::ofstream(file) << "farmdb-config 1\nid 3\ncm 0\nmember 0 0\n";  // no "end"
  EmbeddedConfigStore s(file);
  EXPECT_FALSE(s.Read().has_value());
  std::ofstream(file) << "something else\n";
  EXPECT_FALSE(s.Read().has_value());
}

}  // namespace
}  // namespace farmdb::cluster
