// How the catalog is stored (internal to catalog*.cc): the root object and the system tables.
//
// Root object (little-endian):
//   tag "CTL1" u32 | system table count u32 | version counter u64 | version writer (TxnId) u64 |
//   next oid u64 | system table root Addr u64 x count (in SystemTableId order)
// Every DDL writes it (version bump), so DDL transactions conflict with each other on it; the
// next-oid counter lives here rather than in a storage Sequence because that write happens anyway
// and OIDs then come without gaps from rolled-back DDL.
//
// A system table is a unique BTree from the encoded key (its first key_columns columns, with
// key_codec.h) to the row's EncodeRow bytes (row.h). Rows are small and a snapshot load scans
// each table whole, so the rows sit in the B-tree leaves (one read per leaf) rather than in
// separate row objects as a user storage Table keeps them.
//
// Thread-safety: SystemTable is a value (root Addr + cache pointer); functions are pure apart
// from the Txn they are given.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "storage/btree.h"
#include "storage/catalog.h"
#include "storage/catalog_snapshot.h"
#include "types/value.h"

namespace farmdb::storage {

enum class SystemTableId : uint8_t {
  kNamespace,  // pg_namespace
  kClass,      // pg_class (tables; indexes and sequences have their own tables below)
  kAttribute,  // pg_attribute + pg_attrdef
  kIndex,      // pg_index + the index's pg_class row
  kConstraint, // pg_constraint
  kSequence,   // pg_sequence + the sequence's pg_class row + its pg_depend owner
  kAuthId,     // pg_authid
  kSetting,    // pg_db_role_setting (one row per setting)
  kCount,
};
inline constexpr size_t kSystemTables = static_cast<size_t>(SystemTableId::kCount);

struct CatalogRoot {
  CatalogVersion version;
  uint64_t next_oid = kFirstNormalOid;
  std::array<Addr, kSystemTables> tables{};
};
std::string EncodeCatalogRoot(const CatalogRoot& root);
StorageResult<CatalogRoot> DecodeCatalogRoot(std::span<const std::byte> payload);
StorageResult<CatalogRoot> ReadCatalogRoot(txn::Txn& t, Addr root);
StorageResult<void> WriteCatalogRoot(txn::Txn& t, Addr root, const CatalogRoot& value);

using SystemRow = std::vector<Value>;

class SystemTable {
 public:
  static StorageResult<SystemTable> Create(txn::Txn& t, SystemTableId id, BTreeCache* cache);
  static SystemTable Open(SystemTableId id, Addr root, BTreeCache* cache);
  Addr root() const { return tree_.root(); }

  // Adds a row (kDuplicateKey if its key is present).
  StorageResult<void> Insert(txn::Txn& t, const SystemRow& row) const;
  // Replaces the row with the same key (it must exist).
  StorageResult<void> Update(txn::Txn& t, const SystemRow& row) const;
  // Removes the row whose key columns equal `key` (a prefix of the columns). Returns rows gone.
  StorageResult<size_t> Erase(txn::Txn& t, std::span<const Value> key) const;
  // Every row, in key order.
  StorageResult<std::vector<SystemRow>> ScanAll(txn::Txn& t) const;

 private:
  SystemTable(SystemTableId id, BTree tree) : id_(id), tree_(tree) {}
  std::string KeyOf(std::span<const Value> values) const;
  SystemTableId id_;
  BTree tree_;
};

// Descriptor <-> system-table row. Tables come back without columns, indexes and constraints
// (those are rows of their own tables); LoadSnapshot joins them.
SystemRow NamespaceRow(const NamespaceDesc& d);
SystemRow TableRow(const TableDesc& d);
SystemRow ColumnRow(Oid table, const ColumnDesc& d);
SystemRow IndexRow(const IndexDesc& d);
SystemRow ConstraintRow(const ConstraintDesc& d);
SystemRow SequenceRow(const SequenceDesc& d);
SystemRow RoleRow(const RoleDesc& d);
SystemRow SettingRow(const SettingDesc& d);
// Key of a row in its table (first key columns), for Erase.
SystemRow OidKey(Oid oid);
SystemRow ColumnKey(Oid table, int16_t attnum);
SystemRow SettingKey(Oid setdatabase, Oid setrole, std::string name);

// Reads every system table in `t` and builds the snapshot for `root`'s version.
StorageResult<SnapshotPtr> LoadSnapshot(txn::Txn& t, const CatalogRoot& root, BTreeCache* cache);

// The root as read by a statement and the snapshot of its version.
struct Catalog::Loaded {
  CatalogRoot root;
  SnapshotPtr snapshot;
};

}  // namespace farmdb::storage
