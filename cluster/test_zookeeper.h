// The ZooKeeper server of a test run. Under ctest it is the one the `zookeeper` fixture started
// for the whole run (cluster/CMakeLists.txt), found through FARMDB_TEST_ZOOKEEPER_DIR; a test
// binary run by hand starts one of its own with tools/zookeeper.sh and stops it at exit. Each
// test works under a chroot of its own, so tests sharing the server never see each other's
// znodes.
//
// Needs FARMDB_SOURCE_DIR defined (the checkout, where tools/zookeeper.sh is).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cluster/temp_dir.h"

namespace farmdb::cluster {

class TestZooKeeper {
 public:
  // "127.0.0.1:PORT".
  static const std::string& Address() { return Instance().address_; }

  // Address() + "/farmdb-tests/<suite>.<test>-<pid>-<n>": a chroot no other test uses.
  static std::string FreshChroot() {
    static std::atomic<int> next{0};
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "test";
    return Address() + "/farmdb-tests/" + name + "-" + std::to_string(::getpid()) + "-" +
           std::to_string(next++);
  }

 private:
  static TestZooKeeper& Instance() {
    static TestZooKeeper server;
    return server;
  }

  TestZooKeeper() {
    if (const char* shared = std::getenv("FARMDB_TEST_ZOOKEEPER_DIR")) {
      address_ = ReadAddress(std::string(shared) + "/address");
      return;
    }
    own_ = std::make_unique<TempDir>("zookeeper");
    Script("start --fresh");
    address_ = ReadAddress((own_->path / "address").string());
  }
  ~TestZooKeeper() {
    if (own_) Script("stop");
  }

  void Script(const std::string& command) {
    std::string line = std::string(FARMDB_SOURCE_DIR) + "/tools/zookeeper.sh " + command + " '" +
                       own_->path.string() + "' >/dev/null";
    if (std::system(line.c_str()) != 0) throw std::runtime_error("failed: " + line);
  }

  static std::string ReadAddress(const std::string& file) {
    std::string address;
    if (!(std::ifstream(file) >> address)) {
      throw std::runtime_error("no ZooKeeper address in " + file + " (did its server start?)");
    }
    return address;
  }

  std::unique_ptr<TempDir> own_;  // the server this process started, if it did
  std::string address_;
};

}  // namespace farmdb::cluster
