// The fixture of the DDL tests (ddl_test.cc, ddl_alter_test.cc): an Engine over a 1-3 machine
// Node, sessions on it, the committed catalog as a machine sees it, and rows written and read
// through storage directly (INSERT and SELECT over tables are not the DDL's).
//
// Thread-safety: one test thread, except where a test starts its own.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "sql/node.h"
#include "sql/session.h"
#include "sql/test_sink.h"
#include "storage/catalog.h"
#include "storage/table.h"
#include "txn/engine.h"

namespace farmdb::sql {

class DdlTest : public ::testing::Test {
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
  const storage::TableDesc* FindTable(const storage::SnapshotPtr& s, std::string_view name) {
    return s->FindTable(storage::kPublicNamespace, name);
  }
  // Runs `fn(txn, snapshot)` in a fresh transaction on machine 0 until it commits (INSERT and
  // SELECT over tables are not this branch's: rows go in and come out through storage).
  template <typename Fn>
  void InTxn(Fn fn, int m = 0) {
    auto worker = node_->NewWorker(m);
    for (int attempt = 0; attempt < 100; ++attempt) {
      auto t = *worker->Begin({});
      auto s = node_->Catalog(m).Snapshot(*t);
      ASSERT_TRUE(s || s.error().IsRetryable());
      if (s && fn(*t, **s) && t->Commit()) return;
      t->Abort();
    }
    FAIL() << "transaction never committed";
  }
  void Insert(std::string_view table, std::vector<std::vector<Value>> rows, int m = 0) {
    InTxn(
        [&](txn::Txn& t, const storage::CatalogSnapshot& s) {
          storage::Table storage(s.FindTable(storage::kPublicNamespace, table)->storage, node_->Caches(m));
          for (const auto& row : rows) {
            if (!storage.Insert(t, row)) return false;
          }
          return true;
        },
        m);
  }
  std::vector<std::vector<Value>> Rows(std::string_view table, int m = 0) {
    std::vector<std::vector<Value>> rows;
    InTxn([&](txn::Txn& t, const storage::CatalogSnapshot& s) {
      rows.clear();
      storage::Table storage(s.FindTable(storage::kPublicNamespace, table)->storage, node_->Caches(m));
      auto it = storage.Scan(t, storage::IndexScan{});
      if (!it) return false;
      for (;;) {
        auto more = it->Next();
        if (!more) return false;
        if (!*more) return true;
        rows.push_back(storage.Columns(it->row()));
      }
    }, m);
    return rows;
  }

  std::shared_ptr<Node> node_;
  std::unique_ptr<Engine> engine_;
  RecordingSink sink_;
};

}  // namespace farmdb::sql
