// Row codec: one tuple as stored in a row object (storage_v2 contract A).
//
// Layout (little-endian):
//   u16 schema version | u16 column count n | null bitmap ceil(n/8) bytes |
//   variable-width bitmap ceil(n/8) bytes | fixed part | variable part
// Bit i (byte i/8, bit i%8) of the null bitmap: column i is NULL; of the variable-width bitmap:
// column i has a variable-width type. Fixed part: one 8-byte slot per non-null fixed-width
// column, in column order (bool 0/1, integers/date/timestamp as int64, floats as the double's
// bits). Variable part: u32 end offset (from the start of the variable bytes) per non-null
// variable-width column, then their bytes (text/varchar/name/bytea raw; numeric in PostgreSQL's
// binary format, numeric_send, so its display scale is kept).
//
// Why the variable-width bitmap (beyond the contract's sketch): RowView::Parse gets only the
// bytes, yet IsNull/GetInt/GetBytes must find column i without the schema. With both bitmaps,
// column i's slot is a popcount over the bitmaps, and uniform 8-byte slots mean GetInt needs no
// type. Unused bits of the last bitmap byte are zero.
//
// Readers tolerate rows with fewer columns than the current schema (ALTER TABLE ADD COLUMN):
// columns at or past column_count() are "missing" and the caller supplies the default.
// Thread-safety: RowView is a value over borrowed bytes; the bytes must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/index.h"
#include "types/value.h"

namespace farmdb::storage {

struct RowSchema {
  uint16_t version;
  std::vector<TypeId> columns;
};

// Numeric and the string types (text, varchar, name, bytea, unknown, void) are variable-width.
bool IsVariableWidth(TypeId type);

// REQUIRES: values.size() == schema.columns.size() <= 65535; each value NULL or holding the
// Value alternative of its column type's family (see key_codec.h).
std::string EncodeRow(const RowSchema& schema, std::span<const Value> values);

class RowView {  // borrows the bytes; no copy until a Value is materialised
 public:
  RowView() = default;
  // Checks the header, bitmaps and offsets (kCorrupt on bad bytes); copies nothing.
  static StorageResult<RowView> Parse(std::string_view bytes);

  uint16_t schema_version() const { return version_; }
  uint16_t column_count() const { return count_; }
  // Past the row's columns: added by a later ALTER TABLE ADD COLUMN; use the default.
  bool IsMissing(size_t i) const { return i >= count_; }
  bool IsNull(size_t i) const;  // REQUIRES: i < column_count()
  // Materialises column i as `type` (Null if null or missing). REQUIRES: `type` has the width
  // class (fixed/variable) the column was written with; a numeric column's bytes decode.
  Value Get(size_t i, TypeId type) const;
  // Get into `out`, reusing what it holds: a scan that decodes row after row into the same
  // values copies integers and strings without allocating.
  void GetInto(size_t i, TypeId type, Value& out) const;
  // REQUIRES: i < column_count(), column i non-null and variable-width. Zero copy.
  std::string_view GetBytes(size_t i) const;
  // REQUIRES: i < column_count(), column i non-null and fixed-width. The slot's 8 bytes: the
  // value of an integer, date or timestamp column; a bool's 0/1 or a float's bits otherwise.
  int64_t GetInt(size_t i) const;
  // REQUIRES: as GetInt. Where column i's slot starts in bytes().
  size_t FixedSlotOffset(size_t i) const;
  // Every column's stored bytes, found in one pass (the accessors above count bitmap bits for
  // each column): the 8-byte slot of a fixed-width column, the bytes of a variable-width one,
  // nullopt for NULL. One entry per column of the row (column_count()).
  void ColumnBytes(std::vector<std::optional<std::string_view>>& out) const;
  // The row's encoded bytes (as borrowed).
  std::string_view bytes() const { return bytes_; }

 private:
  bool Bit(size_t bitmap_offset, size_t i) const;
  // Count of set bits in (~null & var) (variable) or (~null & ~var) (fixed) over columns < i.
  size_t CountBefore(size_t i, bool variable) const;
  uint64_t FixedSlot(size_t i) const;

  std::string_view bytes_;
  uint16_t version_ = 0;
  uint16_t count_ = 0;
  uint32_t bitmap_bytes_ = 0;  // ceil(n/8): each bitmap's size
  uint32_t fixed_offset_ = 0;  // start of the fixed part
  uint32_t offsets_offset_ = 0;  // start of the u32 end-offset table
  uint32_t var_offset_ = 0;    // start of the variable bytes
};

// EncodeRow of a changed row without decoding the columns that stay: column i is values[i]
// where changed[i], else as `old` stores it, copied byte for byte (or missing[i], NULL past
// `missing`, where `old` predates the column: ALTER TABLE ADD COLUMN). REQUIRES: values and
// changed have one entry per schema column; `old` was written under a schema whose columns are
// a prefix of this one's (a row of the same table).
std::string PatchRow(const RowSchema& schema, const RowView& old, std::span<const Value> missing,
                     std::span<const Value> values, const std::vector<bool>& changed);

}  // namespace farmdb::storage
