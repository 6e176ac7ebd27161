// The fixture of the DDL tests (ddl_test.cc, ddl_alter_test.cc): NodeSessionTest plus rows
// written and read through storage directly, below SQL.
//
// Thread-safety: one test thread, except where a test starts its own.
#pragma once

#include <string_view>
#include <vector>

#include "sql/node_session_fixture.h"
#include "storage/table.h"

namespace farmdb::sql {

class DdlTest : public NodeSessionTest {
 protected:
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
};

}  // namespace farmdb::sql
