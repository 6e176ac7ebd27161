// A Server on 127.0.0.1, port 0, with the FakeEngine: the harness of the in-process tests.
#pragma once

#include <gtest/gtest.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <string>

#include "server/server.h"
#include "server/testing/fake_engine.h"

namespace farmdb::server::testing {

// Roles and rules the tests rely on: postgres (trust), alice (password), md5user (md5 rule),
// scram (scram-sha-256 rule), blocked (reject); anyone else from 127.0.0.1 falls to the
// catch-all md5 rule. max_message_size is small so "oversized" is cheap to send. No Unix-domain
// socket unless a test adds a directory.
inline constexpr const char* kTestConfig = R"(
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
port = 0
max_message_size = 65536
role postgres superuser
role alice password 'alicepw'
role md5user password 'md5pw'
role scram password 'scrampw'
role blocked password 'x'
role nopass
host all postgres 127.0.0.1/32 trust
host all nopass 127.0.0.1/32 trust
host all alice 127.0.0.1/32 password
host all scram 127.0.0.1/32 scram-sha-256
host all blocked 127.0.0.1/32 reject
host all all 127.0.0.1/32 md5
database app
)";

class TestServer {
 public:
  explicit TestServer(std::string config_text = kTestConfig) {
    log_ = std::make_shared<spdlog::logger>("server",
                                            std::make_shared<spdlog::sinks::stderr_sink_mt>());
    log_->set_level(spdlog::level::warn);
    auto config = ParseConfig(config_text);
    EXPECT_TRUE(config) << config.error();
    auto server = Server::Start(std::move(*config), engine_, *log_);
    EXPECT_TRUE(server) << server.error();
    server_ = std::move(*server);
  }
  int port() const { return server_->Port(); }
  Server& server() { return *server_; }
  FakeEngine& engine() { return engine_; }

 private:
  FakeEngine engine_;
  std::shared_ptr<spdlog::logger> log_;
  std::unique_ptr<Server> server_;
};

}  // namespace farmdb::server::testing
