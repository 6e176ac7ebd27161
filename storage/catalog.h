// Catalog: farmdb's system tables as FaRM objects, so DDL is transactional and seen cluster-wide
// (DESIGN.md "Catalog"), and the per-statement path to a decoded snapshot of them.
//
// A catalog root object (its Addr is the catalog's name; Bootstrap creates it) holds the catalog
// version, the next user OID and the root Addrs of the system tables (catalog_store.h).
// Every DDL method runs in the caller's Txn: it reads the snapshot (so the root enters the read
// set), checks names, writes system-table rows, and bumps the version in the root in the same
// Txn. Because every DDL writes the root, two concurrent DDL transactions conflict and one aborts
// (retryable): DDL is serialised cluster-wide, which is what makes name checks against the
// snapshot sound (two CREATE TABLE t never both commit). A statement calls Snapshot(t), which
// reads the root in t (under serializable a concurrent DDL then fails the statement's
// validation; under SI the snapshot is t's consistent one) and reuses the machine's cached
// decoded snapshot when versions match.
//
// Errors: CatalogError. kStorage carries the storage/txn error (retry the transaction if
// IsRetryable()); the others carry a ready PostgreSQL Error (SQLSTATE and message as PG 15
// words them: 42P07 relation exists, 42710 object exists, 42P01/42704 missing, 42701/42703
// columns, 42P16 invalid table definition).
//
// A DDL method that fails may leave storage allocations in the Txn but writes system-table
// rows only after its last check, so the caller aborts the Txn on any error (as PostgreSQL
// aborts the transaction block).
//
// Using it from the SQL layer: per statement, s = catalog.Snapshot(txn); resolve names with
// s->ResolveRelation / FindTable; open rows with Table(s->TableByOid(oid)->storage, caches);
// map a kDuplicateKey's StorageError::index to a constraint with TableDesc::IndexAt and
// ConstraintOf; a plan cache keeps s->version() and compares it with Version(txn).
//
// Thread-safety: a Catalog is a root Addr and a cache pointer: copyable; use it from any thread
// with that thread's Txn. The CatalogCache must outlive it.
//
// Known gaps: dropping the primary key of a non-empty table (DROP CONSTRAINT t_pkey, DROP
// COLUMN of a key column) is refused with 0A000, because re-keying rows onto a hidden row id
// needs ids from a sequence created in the same Txn, which SequenceCache cannot serve; no
// schemas beyond pg_catalog and public (no CREATE SCHEMA), no ALTER COLUMN (type, default, NOT
// NULL), no renames, no pg_depend (a column default using a sequence does not stop DROP
// SEQUENCE), no foreign keys; generated names are clipped by bytes, not characters.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "storage/catalog_snapshot.h"
#include "storage/index.h"
#include "types/error.h"
#include "types/value.h"

namespace farmdb::storage {

struct CatalogError {
  enum class Code : uint8_t {
    kStorage,    // see storage (retry if IsRetryable())
    kDuplicate,  // name already taken (42P07, 42710, 42701)
    kUndefined,  // no such object (42P01, 42704, 42703, 3F000)
    // refused: 42P16, 2BP01, 23505/23502 (rows break a new key), 22023, 54011, 0A000
    kInvalid,
  };
  Code code = Code::kStorage;
  StorageError storage;  // kStorage
  Error error;           // the others: what the client sees
  bool IsRetryable() const { return code == Code::kStorage && storage.IsRetryable(); }
};

template <typename T>
using CatalogResult = std::expected<T, CatalogError>;

struct ColumnDef {
  std::string name;
  TypeId type = TypeId::kInt4;
  int32_t typmod = -1;
  bool not_null = false;
  std::optional<std::string> default_expr;  // SQL text, as pg_get_expr would print it
};

struct IndexColumnDef {
  std::string column;
  bool descending = false;
  std::optional<bool> nulls_first;  // default: NULLS LAST for ASC, NULLS FIRST for DESC
};

struct IndexDef {
  std::string name;  // empty: PostgreSQL's generated name (t_pkey, t_a_key, t_a_b_idx)
  std::vector<IndexColumnDef> columns;
  bool unique = false;
  IndexKind kind = IndexKind::kBTree;
  bool if_not_exists = false;
  // CreateIndex: ALTER TABLE ADD UNIQUE, a pg_constraint row 'u' of the index's name goes with
  // it (generated name t_a_key instead of t_a_idx). REQUIRES: unique.
  bool constraint = false;
};

struct CheckDef {
  std::string name;  // empty: t_<column>_check when it mentions one column, else t_check; made unique
  std::string expr;  // SQL text
  std::vector<std::string> columns;  // columns it mentions
};

struct CreateTableDef {
  std::string nspname = "public";
  std::string relname;
  std::vector<ColumnDef> columns;
  std::optional<IndexDef> primary_key;  // columns become NOT NULL; kind is the primary index's
  std::vector<IndexDef> unique_constraints;
  std::vector<CheckDef> checks;
  bool if_not_exists = false;  // existing table: return its oid, change nothing
};

struct CreateSequenceDef {
  std::string nspname = "public";
  std::string relname;
  SequenceOptions options;  // Sequence::Create runs in the same Txn
  std::optional<std::pair<Oid, int16_t>> owned_by;  // (table, attnum): serial columns
  bool if_not_exists = false;
};

struct RoleDef {
  std::string rolname;
  bool rolsuper = false;
  bool rolcanlogin = true;
  std::string rolpassword;
};

struct BootstrapOptions {
  std::string superuser = "postgres";  // role oid 10, as initdb's bootstrap superuser
};

class Catalog {
 public:
  // Creates the root, the system tables and the built-in rows (pg_catalog and public namespaces,
  // the bootstrap superuser) in `t`. The catalog exists once t commits; keep root().
  static CatalogResult<Catalog> Bootstrap(txn::Txn& t, const BootstrapOptions& options,
                                          CatalogCache* cache);
  static Catalog Open(Addr root, CatalogCache* cache) { return Catalog(root, cache); }
  Addr root() const { return root_; }

  // The catalog as `t` sees it. Reads the root in t; the decoded snapshot comes from the cache
  // when its version matches, else from the system tables read in t (and is cached).
  CatalogResult<SnapshotPtr> Snapshot(txn::Txn& t) const;
  // Just the version (plan caches compare it with the version they were planned at).
  CatalogResult<CatalogVersion> Version(txn::Txn& t) const;

  // DDL, each in the caller's Txn; see the header comment for concurrency.
  // CREATE TABLE: columns, primary key, UNIQUE constraints (each gets a unique index) and
  // CHECK constraints. Index roots come from `storage` (catalog_ddl.cc: Table::Create).
  CatalogResult<Oid> CreateTable(txn::Txn& t, const CreateTableDef& def);
  // DROP TABLE: its indexes, constraints and owned sequences go too; storage is freed.
  CatalogResult<void> DropTable(txn::Txn& t, Oid table);
  CatalogResult<Oid> CreateIndex(txn::Txn& t, Oid table, const IndexDef& def);
  // TRUNCATE: every row goes (the storage gets new, empty indexes, so the Txn's abort keeps the
  // old rows). restart_identity: sequences owned by its columns start over (a new sequence
  // object with the same options, so that too is transactional).
  CatalogResult<void> Truncate(txn::Txn& t, Oid table, bool restart_identity);
  CatalogResult<void> DropIndex(txn::Txn& t, Oid index);
  // ALTER TABLE ADD COLUMN. Rows written before it read `missing` (PostgreSQL's attmissingval:
  // the caller evaluates a non-volatile default once; nullopt reads NULL). Returns the attnum.
  // The caller checks NOT NULL without a default against existing rows (23502).
  CatalogResult<int16_t> AddColumn(txn::Txn& t, Oid table, const ColumnDef& def,
                                   std::optional<Value> missing = std::nullopt);
  // ALTER TABLE DROP COLUMN: marks it dropped (PostgreSQL's "........pg.dropped.N........"
  // name); indexes and constraints using it are dropped, as PostgreSQL does.
  CatalogResult<void> DropColumn(txn::Txn& t, Oid table, std::string_view column);
  // ALTER TABLE ADD PRIMARY KEY on a table without one (42P16 otherwise). The primary index
  // changes from the hidden row id to the key, so the table's storage is rewritten in t: every
  // row is copied (23502 if a key column holds NULL, 23505 on a duplicate key).
  CatalogResult<Oid> AddPrimaryKey(txn::Txn& t, Oid table, const IndexDef& def);
  // ALTER TABLE ADD CONSTRAINT ... CHECK. The caller checks existing rows first (23514).
  CatalogResult<Oid> AddCheck(txn::Txn& t, Oid table, const CheckDef& def);
  // ALTER TABLE DROP CONSTRAINT: a unique constraint's index goes too; dropping the primary key
  // rewrites the table onto a hidden row id (needs CatalogCache's SequenceCache).
  CatalogResult<void> DropConstraint(txn::Txn& t, Oid table, std::string_view conname);
  CatalogResult<Oid> CreateSequence(txn::Txn& t, const CreateSequenceDef& def);
  CatalogResult<void> DropSequence(txn::Txn& t, Oid sequence);
  CatalogResult<Oid> CreateRole(txn::Txn& t, const RoleDef& def);
  CatalogResult<void> DropRole(txn::Txn& t, std::string_view rolname);
  // ALTER ROLE/DATABASE ... SET name = value (value nullopt: RESET). 0 = all databases/roles.
  CatalogResult<void> SetDefault(txn::Txn& t, Oid setdatabase, Oid setrole, std::string_view name,
                                 std::optional<std::string> value);

 private:
  struct Loaded;
  class Ddl;  // one DDL statement's state (catalog_ddl.cc)

  Catalog(Addr root, CatalogCache* cache) : root_(root), cache_(cache) {}
  // Reads the root in t and finds or builds the snapshot of its version.
  CatalogResult<Loaded> Load(txn::Txn& t) const;

  Addr root_;
  CatalogCache* cache_;
};

}  // namespace farmdb::storage
