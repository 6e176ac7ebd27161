// Table: rows in FaRM objects, a primary index and secondary indexes over them, all changed only
// inside the caller's transaction (DESIGN.md "storage/", storage_v2 contract B).
//
// Data flow. A row object holds one EncodeRow tuple (row.h):
//   row object   u32 row length | row bytes | hidden row id u64 (tables without a primary key)
// The primary index (B-tree by default, hash on request; always unique) maps the encoded primary
// key (key_codec.h) to the row object's Addr (8 bytes, little-endian). Secondary indexes (B-tree
// or hash, unique or not) map the encoded secondary key to the row's Addr too, not to the primary
// key as DESIGN.md first said: a secondary lookup then costs one index probe and one row read,
// and opacity (FaRMv2 §4.2) keeps the Addr exact because every index change happens in the
// transaction that moves or deletes the row. A primary-key Get is one index probe plus one row
// read; Insert reads nothing but the index nodes it changes.
//
// A table without a primary key keys its primary index by a hidden row id (int8, encoded as a
// key) taken from a Sequence through the machine's SequenceCache.
//
// Secondary entries. A B-tree secondary is always a unique tree: a non-unique index stores
// key + row Addr (8 bytes) -> Addr, so erasing one row's entry is one exact descent however many
// rows share the key. Unique secondary indexes follow PostgreSQL's NULLS DISTINCT: a key with a
// NULL column never conflicts, so such a key is stored with the Addr appended too. Because every
// column encoding is prefix-free, the suffix never changes which scan bounds an entry satisfies
// (IndexScan compares by key columns). A hash secondary maps the key to the Addr (non-unique:
// a multi-valued hash index; unique: NULL keys carry the suffix).
//
// UPDATE writes the row object in place when the new tuple fits its allocation (the object's
// payload capacity), else allocates a new object, frees the old one and repoints every index
// entry. An index whose key columns changed is updated (erase + insert) in the same Txn.
//
// Positions: 0 is the primary index, i >= 1 is descriptor.secondary[i - 1]. StorageError::index
// carries the position of a unique violation (kDuplicateKey) so SQL can name the constraint.
//
// Thread-safety: a Table is immutable after construction (cheap to build per statement from the
// catalog's descriptor) and may be shared by threads; each call uses the caller's Txn, which
// one thread uses at a time. StoredRow and RowIterator belong to the Txn's thread and must not
// outlive the Txn they were read in.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "storage/btree.h"
#include "storage/hash_index.h"
#include "storage/index.h"
#include "storage/key_codec.h"
#include "storage/row.h"
#include "storage/sequence.h"

namespace farmdb::storage {

enum class IndexKind : uint8_t { kBTree = 0, kHash = 1 };  // pg_am: btree, hash

struct IndexColumn {
  uint16_t column = 0;  // 0-based position in the row (attnum - 1)
  KeyColumn key;        // the column's type, direction, nulls order
};

// What an index is over. The primary index is always unique; its empty `columns` means a hidden
// row id.
struct IndexSpec {
  IndexKind kind = IndexKind::kBTree;
  bool unique = false;
  std::vector<IndexColumn> columns;
};

struct IndexDescriptor {
  IndexSpec spec;
  Addr root;  // the BTree's or HashIndex's root object
};

// Everything storage needs to reach a table: the catalog stores it and rebuilds it per version.
struct TableDescriptor {
  RowSchema schema;  // every column's type (dropped columns included); version of new rows
  // Values of columns added (ALTER TABLE ADD COLUMN ... DEFAULT constant) after some rows were
  // written: rows shorter than the schema read column i as missing[i] (NULL past the end).
  std::vector<Value> missing;
  IndexDescriptor primary;
  SequenceRef row_id_sequence;  // hidden row ids: set iff primary.spec.columns is empty
  std::vector<IndexDescriptor> secondary;
};

// Per-machine state a Table uses; both outlive it.
struct TableCaches {
  BTreeCache* btree = nullptr;
  SequenceCache* sequences = nullptr;  // only tables with a hidden row id use it
  HashDirectoryCache* hash = nullptr;  // hash indexes' directories (hints, hash_index.h)
  friend bool operator==(const TableCaches&, const TableCaches&) = default;
};

// One row as read in a Txn: the object's bytes (owned) and a RowView over them. Move-only, so
// the view never dangles.
class StoredRow {
 public:
  StoredRow(StoredRow&&) = default;
  StoredRow& operator=(StoredRow&&) = default;
  StoredRow(const StoredRow&) = delete;
  StoredRow& operator=(const StoredRow&) = delete;

  Addr addr() const { return addr_; }
  // The stored tuple; materialise columns with Table::Column / Table::Columns, which fill in
  // columns missing from rows older than an ADD COLUMN.
  const RowView& view() const { return view_; }

 private:
  friend class Table;
  StoredRow() = default;
  Addr addr_;
  std::vector<std::byte> object_;  // the whole payload; capacity bounds in-place updates
  RowView view_;                   // over object_
};

// Bounds are encoded key prefixes (Table::IndexKey over the first k key columns) compared with
// the entries' first k key columns, in the index's order, as SQL compares them: lower {L,
// inclusive} is "columns >= L", exclusive "columns > L"; upper likewise. So {L, inclusive} as
// both bounds is a prefix scan (a = 1 on an index over (a, b)). Hash indexes support equality
// on the full key only: lower and upper both present, inclusive and equal.
struct IndexScan {
  uint32_t index = 0;  // position: 0 primary, i secondary i
  std::optional<KeyBound> lower = std::nullopt;
  std::optional<KeyBound> upper = std::nullopt;
  ScanDirection direction = ScanDirection::kForward;
};

// Rows in index order (B-tree) or in no particular order (hash equality), each read through the
// Txn when Next reaches it.
class RowIterator {
 public:
  // Moves to the next row; false once past the last.
  StorageResult<bool> Next();
  // REQUIRES: the last Next() returned true.
  const StoredRow& row() const { return *row_; }
  // The row, moved out for a caller that keeps it (UPDATE and DELETE change the rows they
  // collected). REQUIRES: as row(); row() is not called again before the next Next().
  StoredRow TakeRow() { return std::move(*row_); }

 private:
  friend class Table;
  RowIterator(const class Table* table, txn::Txn* t, std::unique_ptr<IndexIterator> it)
      : table_(table), txn_(t), it_(std::move(it)) {}
  const class Table* table_;
  txn::Txn* txn_;
  std::unique_ptr<IndexIterator> it_;
  std::optional<StoredRow> row_;
};

class Table {
 public:
  // CREATE TABLE: allocates the indexes (and the hidden row id's sequence when primary.columns
  // is empty) in `t`; the descriptor it returns is what the catalog stores. kInvalidArgument
  // for column positions outside the schema. Primary uniqueness is implied.
  static StorageResult<TableDescriptor> Create(txn::Txn& t, RowSchema schema, IndexSpec primary,
                                               std::vector<IndexSpec> secondary = {});

  // A handle over a descriptor (non-null) the catalog built; opens the index handles once.
  Table(std::shared_ptr<const TableDescriptor> descriptor, TableCaches caches);
  const TableDescriptor& descriptor() const { return *descriptor_; }
  const TableCaches& caches() const { return caches_; }

  // INSERT one row (values: one per schema column, NULL or the column type's Value family).
  // Writes the row object and one entry per index, reading only index nodes. On kDuplicateKey
  // (error.index names the index) it undoes its own changes, so the Txn stays usable (ON
  // CONFLICT, or a statement failing inside a savepoint-less block that then aborts anyway).
  // kTooLarge when the tuple exceeds one object. Returns the row's Addr.
  StorageResult<Addr> Insert(txn::Txn& t, std::span<const Value> values) const;

  // Primary-key point lookup (the full key, one Value per primary key column): one index probe
  // and one row read. nullopt if absent. kInvalidArgument for a table with a hidden row id.
  StorageResult<std::optional<StoredRow>> Get(txn::Txn& t, std::span<const Value> key) const;

  // The row at `row` (an Addr from a scan, or kept from earlier in this Txn).
  StorageResult<StoredRow> Read(txn::Txn& t, Addr row) const;

  // UPDATE `row` to `values`. `changed` (one flag per column; empty: all) marks the columns the
  // UPDATE sets; the others keep their stored bytes whatever `values` holds for them, so a
  // caller need not decode them (PatchRow). REQUIRES: `row` was read in `t` after t's last
  // change to it (its stored keys locate the index entries). Indexes whose key changed are
  // updated; a unique violation fails kDuplicateKey with error.index (the Txn's changes are then
  // partial: the caller aborts it). Returns the row's Addr, new if the tuple outgrew its object.
  StorageResult<Addr> Update(txn::Txn& t, const StoredRow& row, std::span<const Value> values,
                             const std::vector<bool>& changed = {}) const;

  // DELETE `row` (REQUIRES: as Update): removes every index entry and frees the object.
  StorageResult<void> Delete(txn::Txn& t, const StoredRow& row) const;

  // Index scan: B-tree ranges in either direction, hash equality. The iterator reads each row
  // when it reaches it and must not outlive `t` or this Table.
  StorageResult<RowIterator> Scan(txn::Txn& t, const IndexScan& scan) const;

  // The encoded key of index `index` over `values` (the first values.size() key columns: a
  // prefix for prefix scans), for Scan bounds.
  std::string IndexKey(uint32_t index, std::span<const Value> values) const;

  // Column i of `row` as a Value, the `missing` default for rows older than the column.
  Value Column(const StoredRow& row, size_t i) const;
  // Column into `out`, reusing what it holds (RowView::GetInto).
  void ColumnInto(const StoredRow& row, size_t i, Value& out) const;
  // Every column of `row` (schema order).
  std::vector<Value> Columns(const StoredRow& row) const;
  // Replaces `out` with the columns `wanted` names (by position; empty: every one), the others
  // as NULLs of their types: a query that reads few columns of a wide row decodes only those.
  // `out`'s values are reused, so a scan that decodes into one row allocates it once and does
  // not rebuild the NULLs of columns it never reads.
  void Columns(const StoredRow& row, const std::vector<bool>& wanted, std::vector<Value>& out) const;

  // CREATE INDEX on a possibly non-empty table: allocates the index and fills it from every row
  // in `t`. kDuplicateKey (error.index = secondary.size() + 1) if a unique index finds two rows
  // with one key. The caller appends the result to the descriptor it stores.
  StorageResult<IndexDescriptor> AddIndex(txn::Txn& t, IndexSpec spec) const;

  // DROP INDEX: frees the index objects of secondary position `index` (>= 1) in `t`; the caller
  // removes it from the descriptor it stores.
  StorageResult<void> DropIndex(txn::Txn& t, uint32_t index) const;

  // TRUNCATE: frees every row and every index object, and returns the descriptor with new,
  // empty indexes (same specs; the hidden row id sequence is kept) for the caller to store.
  StorageResult<TableDescriptor> Truncate(txn::Txn& t) const;

  // DROP TABLE: frees every row, every index object and the hidden row id sequence.
  StorageResult<void> Drop(txn::Txn& t) const;

 private:
  friend class RowIterator;
  using AnyIndex = std::variant<BTree, HashIndex>;

  const IndexSpec& Spec(uint32_t pos) const;
  // Entry keys of every index for a row (table.cc: EntryKey).
  std::vector<std::string> RowKeys(std::span<const Value> values, Addr addr, int64_t row_id) const;
  std::vector<std::string> StoredKeys(const StoredRow& row) const;
  StorageResult<std::vector<Addr>> RowAddrs(txn::Txn& t) const;
  // Frees every row object and every index object (TRUNCATE, DROP).
  StorageResult<void> FreeAll(txn::Txn& t) const;

  std::shared_ptr<const TableDescriptor> descriptor_;
  TableCaches caches_;
  std::vector<AnyIndex> indexes_;  // by position: primary first
};

}  // namespace farmdb::storage
