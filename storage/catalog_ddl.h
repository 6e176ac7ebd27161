// Internal to catalog*.cc: Catalog::Ddl, one DDL statement's state, and the error and naming
// helpers the DDL files share.
//
// Each DDL method reads the snapshot in the caller's Txn (Ddl::Begin), checks names against it
// (and against names the statement itself takes), changes storage (storage::Table, Sequence)
// and the system-table rows, and bumps the catalog version (Ddl::Finish), all in that Txn;
// catalog.h says why this serialises DDL. A Ddl is used by the Txn's thread only.
#pragma once

#include <fmt/format.h>
#include <string>
#include <vector>

#include "storage/catalog.h"
#include "storage/catalog_store.h"

namespace farmdb::storage {

class Catalog::Ddl {
 public:
  using Code = CatalogError::Code;

  // Errors with PostgreSQL's SQLSTATE and wording.
  static std::unexpected<CatalogError> Fail(Code code, std::string sqlstate, std::string message,
                                            std::string detail = "", std::string hint = "");
  static std::unexpected<CatalogError> StorageFailure(StorageError e);
  static std::unexpected<CatalogError> RelationExists(std::string_view name);

  // PostgreSQL's ChooseRelationName / ChooseConstraintName over makeObjectName: name1_name2_label
  // clipped to NAMEDATALEN - 1 bytes (the longer part first), then label1, label2 ... until
  // `taken` says no. name2 may be empty (t_pkey).
  template <typename Taken>
  static std::string ChooseName(const std::string& name1, const std::string& name2,
                                std::string_view label, Taken taken) {
    std::string modlabel(label);
    for (int pass = 1;; ++pass) {
      std::string name = MakeObjectName(name1, name2, modlabel);
      if (!taken(name)) return name;
      modlabel = std::string(label) + std::to_string(pass);
    }
  }

  static CatalogResult<Ddl> Begin(const Catalog& c, txn::Txn& t);
  // Bumps the version (and stores next_oid) in the root: the write every DDL makes.
  CatalogResult<void> Finish();

  const CatalogSnapshot& snap() const { return *loaded_.snapshot; }
  txn::Txn& txn() { return t_; }
  TableCaches caches() { return catalog_.cache_->user_tables(); }
  Oid NewOid() { return static_cast<Oid>(loaded_.root.next_oid++); }

  CatalogResult<void> Insert(SystemTableId id, const SystemRow& row);
  CatalogResult<void> Update(SystemTableId id, const SystemRow& row);
  CatalogResult<void> Erase(SystemTableId id, const SystemRow& key);
  // Writes a table's pg_class row and all its attribute, index and constraint rows, replacing
  // those of `old` (nullptr: a new table).
  CatalogResult<void> PutTable(const TableDesc& d, const TableDesc* old);
  CatalogResult<void> EraseTable(const TableDesc& d);

  CatalogResult<const TableDesc*> Table(Oid oid) const;                 // 42P01
  CatalogResult<const NamespaceDesc*> Namespace(std::string_view nspname) const;  // 3F000
  // Relation names in `nsp` taken in the snapshot or by this statement so far.
  bool RelationTaken(Oid nsp, std::string_view name) const;
  void TakeName(std::string name) { new_names_.push_back(std::move(name)); }

  // Index columns resolved against the table's live columns (42703 "named in key").
  CatalogResult<std::vector<IndexKeyColumn>> KeyColumns(const TableDesc& table,
                                                        const std::vector<IndexColumnDef>& cols);
  // The index's name (explicit, or generated with `label`: pkey, key, idx), taken for this
  // statement; 42P07 if an explicit one is in use.
  CatalogResult<std::string> IndexName(const TableDesc& table, const IndexDef& def,
                                       std::string_view label);
  // A check constraint for `table` (name explicit or generated; 42710 if taken; 42703 for an
  // unknown column).
  CatalogResult<ConstraintDesc> Check(const TableDesc& table, const CheckDef& def);

  // Allocates storage for `table` as its columns and indexes describe (Table::Create) and sets
  // its roots and hidden row id sequence.
  CatalogResult<void> CreateStorage(TableDesc& table);
  // Moves `old`'s rows into new storage shaped as `next` describes (its primary key or hidden
  // row id, its indexes), assigns next's roots and frees old's storage. For ADD/DROP PRIMARY
  // KEY: the primary index's key changes, so every row is re-inserted. Dropped columns of
  // `next` are written as NULL.
  CatalogResult<void> Rewrite(const TableDesc& old, TableDesc& next);
  // Storage for the indexes `next` no longer has: a rewrite when the primary key went, else
  // each dropped secondary index is freed.
  CatalogResult<void> DropIndexStorage(const TableDesc& old, TableDesc& next);

 private:
  Ddl(const Catalog& c, txn::Txn& t, Loaded loaded)
      : catalog_(c), t_(t), loaded_(std::move(loaded)) {}
  static std::string MakeObjectName(std::string name1, std::string name2, std::string_view label);
  SystemTable Sys(SystemTableId id) const;

  const Catalog& catalog_;
  txn::Txn& t_;
  Loaded loaded_;
  std::vector<std::string> new_names_;
};

}  // namespace farmdb::storage
