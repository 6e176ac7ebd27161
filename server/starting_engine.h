// StartingEngine: the engine a server listens with while its node starts (a recovery, or a
// multi-process cluster waiting for enough nodes to form). Until Ready, every new session is
// refused as PostgreSQL refuses them while it starts: FATAL 57P03 "the database system is
// starting up". Then sessions come from the real engine, which it owns from then on.
//
// Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "sql/session.h"

namespace farmdb::server {

class StartingEngine final : public sql::Engine {
 public:
  // `why`: the refusal's detail (what the node waits for).
  explicit StartingEngine(std::string why) : why_(std::move(why)) {}

  void Ready(std::unique_ptr<sql::Engine> engine) {
    std::lock_guard l(mu_);
    engine_ = std::move(engine);
  }

  std::expected<std::unique_ptr<sql::Session>, Error> NewSession(sql::SessionOptions options) override {
    sql::Engine* engine;
    {
      std::lock_guard l(mu_);
      engine = engine_.get();
    }
    // Once set, the engine stays until this object goes, after every session is gone.
    if (engine != nullptr) return engine->NewSession(std::move(options));
    Error refused = MakeError("57P03", "the database system is starting up");
    refused.detail = why_;
    return std::unexpected(std::move(refused));
  }

 private:
  const std::string why_;
  std::mutex mu_;
  std::unique_ptr<sql::Engine> engine_;  // guarded by mu_; null until Ready
};

}  // namespace farmdb::server
