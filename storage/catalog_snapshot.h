// The catalog as the SQL layer sees it: descriptors of namespaces, tables (columns, indexes,
// constraints), sequences, roles and settings, decoded from the system tables into one immutable
// CatalogSnapshot, and the per-machine CatalogCache that keeps snapshots by catalog version.
//
// Names follow PostgreSQL's catalogs (pg_class.relname, pg_attribute.attnum/atttypid/atttypmod/
// attnotnull/attisdropped, pg_index.indisunique/indisprimary, pg_constraint.contype ...) so the
// pg_catalog views psql and pgjdbc read can be generated from these structs field by field.
//
// Thread-safety: a CatalogSnapshot never changes after it is built; share it freely
// (std::shared_ptr<const CatalogSnapshot>). CatalogCache is thread-safe.
// Invariants of a snapshot: every index, constraint and column belongs to exactly one table in
// it; relation names (tables, indexes, sequences) are unique per namespace; a table's columns
// are indexed by attnum - 1 and include dropped columns (rows keep their positions).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/btree.h"
#include "storage/sequence.h"
#include "storage/table.h"
#include "types/type.h"

namespace farmdb::storage {

using txn::Addr;

// Well-known OIDs, as in PostgreSQL 15.
inline constexpr Oid kPgCatalogNamespace = 11;
inline constexpr Oid kPublicNamespace = 2200;
inline constexpr Oid kBootstrapSuperuser = 10;
inline constexpr Oid kFirstNormalOid = 16384;  // user objects (FirstNormalObjectId)

// Which catalog state a snapshot shows. `counter` grows with every DDL statement; `writer` is the
// TxnId of the transaction that wrote it, so two transactions that both bump the counter to the
// same value (one of them aborts) never share a cache entry, and a snapshot built from a
// transaction's own uncommitted DDL can never be mistaken for committed state.
struct CatalogVersion {
  uint64_t counter = 0;
  uint64_t writer = 0;
  friend bool operator==(const CatalogVersion&, const CatalogVersion&) = default;
};

struct NamespaceDesc {
  Oid oid = 0;
  std::string nspname;
};

struct ColumnDesc {
  int16_t attnum = 0;  // 1-based position in the row
  std::string attname;
  TypeId type = TypeId::kUnknown;  // kept for dropped columns too: old rows still hold them
  int32_t atttypmod = -1;          // PostgreSQL's typmod (varchar(n): n + 4), -1 if none
  bool attnotnull = false;
  std::optional<std::string> default_expr;  // pg_attrdef, as SQL text (pg_get_expr output)
  bool attisdropped = false;
  // What rows written before ALTER TABLE ADD COLUMN read for this column (PostgreSQL's
  // attmissingval: the default evaluated once); nullopt: NULL.
  std::optional<Value> attmissingval;
  Oid atttypid() const { return attisdropped ? 0 : Info(type).oid; }
};

struct IndexKeyColumn {
  int16_t attnum = 0;
  bool descending = false;
  bool nulls_first = false;
  friend bool operator==(const IndexKeyColumn&, const IndexKeyColumn&) = default;
};

struct IndexDesc {
  Oid oid = 0;
  Oid indrelid = 0;  // the table
  std::string relname;
  std::vector<IndexKeyColumn> keys;
  bool indisunique = false;
  bool indisprimary = false;
  IndexKind kind = IndexKind::kBTree;
  Addr root;  // the storage index's root object
};

struct ConstraintDesc {
  Oid oid = 0;
  std::string conname;
  Oid conrelid = 0;
  char contype = 'c';             // 'c' check, 'p' primary key, 'u' unique (pg_constraint)
  Oid conindid = 0;               // 'p' / 'u': the index enforcing it
  std::vector<int16_t> conkey;    // columns it constrains
  std::string check_expr;         // 'c': the expression as SQL text (pg_get_constraintdef body)
};

struct TableDesc {
  Oid oid = 0;
  std::string relname;
  Oid relnamespace = kPublicNamespace;
  Oid relowner = kBootstrapSuperuser;
  // Stored in the table's pg_class row; `storage` below is derived from them and the indexes.
  uint16_t schema_version = 1;  // RowSchema::version of rows written now; ALTERs bump it
  IndexKind primary_kind = IndexKind::kBTree;
  Addr primary_root;            // primary index (the pkey index's root, or the hidden row id's)
  SequenceRef rowid_sequence;   // tables without a primary key: hidden row ids, else null addr
  std::vector<ColumnDesc> columns;          // by attnum - 1, dropped ones included
  std::vector<IndexDesc> indexes;           // primary key index first if any, then by oid
  std::vector<ConstraintDesc> constraints;  // by oid
  // What storage::Table needs (built when the snapshot is): Table(storage, caches). Its index
  // positions match IndexAt.
  std::shared_ptr<const TableDescriptor> storage;

  // The live (not dropped) column called `name`, or nullptr.
  const ColumnDesc* FindColumn(std::string_view name) const;
  const IndexDesc* PrimaryKey() const;  // nullptr when the table has none (hidden row id)
  // The index at a storage position (0 primary, i >= 1 secondary i; StorageError::index), or
  // nullptr for a hidden row id's primary index or a position out of range.
  const IndexDesc* IndexAt(uint32_t position) const;
  // The constraint an index enforces ('p' or 'u'), or nullptr (plain CREATE [UNIQUE] INDEX).
  const ConstraintDesc* ConstraintOf(Oid index) const;
  bool relhasindex() const { return !indexes.empty(); }
};

// The storage descriptor of a table as its catalog rows describe it.
TableDescriptor StorageDescriptor(const TableDesc& table);

struct SequenceDesc {
  Oid oid = 0;
  std::string relname;
  Oid relnamespace = kPublicNamespace;
  SequenceRef object;       // the storage sequence object
  Oid owned_by_table = 0;   // ALTER SEQUENCE ... OWNED BY / serial: dropped with the table
  int16_t owned_by_attnum = 0;
};

struct RoleDesc {
  Oid oid = 0;
  std::string rolname;
  bool rolsuper = false;
  bool rolcanlogin = true;
  std::string rolpassword;  // verifier ("SCRAM-SHA-256$..." or "md5..."), empty if none
};

// pg_db_role_setting: ALTER ROLE / ALTER DATABASE ... SET defaults. 0 means "any".
struct SettingDesc {
  Oid setdatabase = 0;
  Oid setrole = 0;
  std::string name;
  std::string value;
};

// What a relation name in a namespace denotes (tables, indexes and sequences share pg_class).
struct RelationRef {
  enum class Kind : uint8_t { kTable, kIndex, kSequence } kind;
  Oid oid;
  char relkind() const { return kind == Kind::kTable ? 'r' : kind == Kind::kIndex ? 'i' : 'S'; }
};

class CatalogSnapshot {
 public:
  // Builds the name and oid maps over the given descriptors. REQUIRES: the invariants above.
  CatalogSnapshot(CatalogVersion version, std::vector<NamespaceDesc> namespaces,
                  std::vector<TableDesc> tables, std::vector<SequenceDesc> sequences,
                  std::vector<RoleDesc> roles, std::vector<SettingDesc> settings);

  CatalogVersion version() const { return version_; }

  const NamespaceDesc* FindNamespace(std::string_view nspname) const;
  const NamespaceDesc* NamespaceByOid(Oid oid) const;
  std::optional<RelationRef> FindRelation(Oid nsp, std::string_view relname) const;
  const TableDesc* FindTable(Oid nsp, std::string_view relname) const;
  const TableDesc* TableByOid(Oid oid) const;
  const IndexDesc* FindIndex(Oid nsp, std::string_view relname) const;
  const IndexDesc* IndexByOid(Oid oid) const;
  const SequenceDesc* FindSequence(Oid nsp, std::string_view relname) const;
  const SequenceDesc* SequenceByOid(Oid oid) const;
  const RoleDesc* FindRole(std::string_view rolname) const;
  const RoleDesc* RoleByOid(Oid oid) const;
  // A constraint name is unique per table (as in PostgreSQL); nullptr if absent.
  const ConstraintDesc* FindConstraint(Oid table, std::string_view conname) const;
  // Resolves an unqualified relation name along a search path of namespace names (pg_catalog is
  // searched first unless listed, as in PostgreSQL); missing namespaces are skipped.
  std::optional<RelationRef> ResolveRelation(std::span<const std::string> search_path,
                                             std::string_view relname) const;

  // Whole collections, ordered by oid, for pg_catalog views.
  const std::map<Oid, NamespaceDesc>& namespaces() const { return namespaces_; }
  const std::map<Oid, TableDesc>& tables() const { return tables_; }
  const std::map<Oid, SequenceDesc>& sequences() const { return sequences_; }
  const std::map<Oid, RoleDesc>& roles() const { return roles_; }
  const std::vector<SettingDesc>& settings() const { return settings_; }

 private:
  CatalogVersion version_;
  std::map<Oid, NamespaceDesc> namespaces_;
  std::map<Oid, TableDesc> tables_;
  std::map<Oid, SequenceDesc> sequences_;
  std::map<Oid, RoleDesc> roles_;
  std::vector<SettingDesc> settings_;
  std::map<std::pair<Oid, std::string>, RelationRef, std::less<>> relations_;  // (nsp, relname)
  std::map<Oid, const IndexDesc*> indexes_;  // points into tables_ (node-stable, immutable)
};

using SnapshotPtr = std::shared_ptr<const CatalogSnapshot>;

// One per machine: recently used snapshots by version, and the B-tree cache of the system
// tables' internal nodes. Entries are keyed by exact version, so they never need invalidating:
// a statement reads the version in its transaction and takes the entry only on a match.
class CatalogCache {
 public:
  // `user_tables`: the machine's caches for user tables, used by DDL that reads or rewrites rows
  // (CREATE INDEX, DROP TABLE, ADD PRIMARY KEY); a null btree uses the system tables' cache.
  explicit CatalogCache(TableCaches user_tables = {}) : user_tables_(user_tables) {}
  SnapshotPtr Get(const CatalogVersion& v) const;
  void Put(SnapshotPtr snapshot);
  BTreeCache& btree_cache() { return btree_cache_; }
  TableCaches user_tables() {
    return {user_tables_.btree ? user_tables_.btree : &btree_cache_, user_tables_.sequences};
  }
  uint64_t loads() const;  // snapshots built from the system tables (tests, stats)
  void CountLoad();

 private:
  static constexpr size_t kEntries = 4;  // a few concurrent versions during DDL churn
  mutable std::mutex mu_;
  std::vector<SnapshotPtr> entries_;  // most recently put last; guarded by mu_
  uint64_t loads_ = 0;                // guarded by mu_
  BTreeCache btree_cache_;
  TableCaches user_tables_;
};

}  // namespace farmdb::storage
