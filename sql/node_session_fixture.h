// NodeSessionTest: a GoogleTest fixture running Sessions on an in-process Node (sql/node.h), for
// tests of statements that reach storage through a Txn, and a reader of the committed catalog.
// Test-only; one fixture per test, used from the test's thread (sessions may run on others).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "sql/node.h"
#include "sql/session.h"
#include "sql/test_sink.h"
#include "storage/catalog.h"
#include "txn/engine.h"

namespace farmdb::sql {

class NodeSessionTest : public ::testing::Test {
 protected:
  void Start(int machines) {
    NodeOptions node_options;
    node_options.machines = machines;
    node_options.region_size = 8ull << 20;
    auto node = Node::Start(node_options);
    ASSERT_TRUE(node) << node.error();
    node_ = *node;
    EngineOptions options;
    options.node = node_;
    engine_ = NewEngine(std::move(options));
  }
  // A session on the next machine (round-robin).
  std::unique_ptr<Session> NewSession() {
    SessionOptions options;
    options.user = "postgres";
    options.database = "postgres";
    options.is_superuser = true;
    auto s = engine_->NewSession(std::move(options));
    EXPECT_TRUE(s.has_value());
    return s ? std::move(*s) : nullptr;
  }
  // Runs `sql` on a fresh sink_; the error (sqlstate empty on success).
  Error Run(Session& s, std::string_view sql) {
    sink_ = RecordingSink();
    auto r = s.SimpleQuery(sql, sink_);
    return r ? Error{} : r.error();
  }
  // The committed catalog as machine m sees it, read in a fresh transaction.
  storage::SnapshotPtr Snapshot(int m) {
    auto worker = node_->NewWorker(m);
    for (;;) {
      auto t = *worker->Begin({});
      auto s = node_->Catalog(m).Snapshot(*t);
      if (s && t->Commit()) return *s;
      EXPECT_TRUE(!s && s.error().IsRetryable()) << "snapshot failed";
      if (s || !s.error().IsRetryable()) return nullptr;
      t->Abort();
    }
  }
  // Whether the committed catalog (machine 0) has table public.`name`.
  bool HasTable(std::string_view name) {
    auto s = Snapshot(0);
    return s && s->FindTable(storage::kPublicNamespace, name) != nullptr;
  }

  std::shared_ptr<Node> node_;
  std::unique_ptr<Engine> engine_;
  RecordingSink sink_;
};

}  // namespace farmdb::sql
