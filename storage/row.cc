#include "storage/row.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <variant>

#include "types/binary_reader.h"

namespace farmdb::storage {
namespace {

constexpr size_t kHeaderBytes = 4;  // version u16, column count u16
constexpr size_t kSlotBytes = 8;
constexpr size_t kOffsetBytes = 4;

template <typename T>
void StoreLE(char* p, T v) {
  if constexpr (std::endian::native == std::endian::big) v = std::byteswap(v);
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
T LoadLE(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) v = std::byteswap(v);
  return v;
}

uint64_t FixedBits(const Value& v, TypeId type) {
  switch (type) {
    case TypeId::kBool:
      return v.AsBool() ? 1 : 0;
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return std::bit_cast<uint64_t>(v.AsFloat());
    default:
      return static_cast<uint64_t>(v.AsInt());
  }
}

// A row object is written only by EncodeRow, and opacity (FaRMv2 §4.2) means no reader sees a
// torn one; a column read with the wrong width class or a numeric that does not decode is a
// catalog bug or memory corruption, where carrying on would return wrong answers.
[[noreturn]] void RowInvariantBroken() { std::abort(); }

}  // namespace

bool IsVariableWidth(TypeId type) {
  switch (type) {
    case TypeId::kBool:
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
    case TypeId::kFloat4:
    case TypeId::kFloat8:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kOid:
    case TypeId::kRegclass:
    case TypeId::kRegtype:
    case TypeId::kRegproc:
    case TypeId::kRegnamespace:
      return false;
    case TypeId::kAclitem:
    case TypeId::kUnknown:
    case TypeId::kNumeric:
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
    case TypeId::kName:
    case TypeId::kBytea:
    case TypeId::kChar:
    case TypeId::kPgNodeTree:
    case TypeId::kVoid:
      return true;
    // Containers and pseudo-types: no column has one (the DDL checks IsStorable).
    FARMDB_UNSTORABLE_TYPE_CASES:
      RowInvariantBroken();
  }
  return true;
}

namespace {

void AppendVariable(std::string& out, const Value& v, TypeId type) {
  if (type == TypeId::kNumeric) {
    out += v.AsNumeric().EncodeBinary();
  } else {
    out += v.AsString();
  }
}

// The columns EncodeRow writes: `values`.
struct ValueColumns {
  const RowSchema& schema;
  std::span<const Value> values;

  bool IsNull(size_t i) const { return values[i].IsNull(); }
  uint64_t Slot(size_t i) const { return FixedBits(values[i], schema.columns[i]); }
  size_t SizeHint(size_t i) const {
    const auto* s = std::get_if<std::string>(&values[i].data);
    return s != nullptr ? s->size() : 0;
  }
  void AppendVariable(std::string& out, size_t i) const { storage::AppendVariable(out, values[i], schema.columns[i]); }
};

// The columns PatchRow writes: the changed ones from `values`, the others as `old` stores them
// (`missing` past its last column), copied without decoding.
struct PatchedColumns {
  PatchedColumns(const RowSchema& schema, const RowView& old, std::span<const Value> missing,
                 std::span<const Value> values, const std::vector<bool>& changed)
      : schema(schema), missing(missing), values(values), changed(changed) {
    old.ColumnBytes(old_bytes);
  }

  const RowSchema& schema;
  std::span<const Value> missing;
  std::span<const Value> values;
  const std::vector<bool>& changed;
  std::vector<std::optional<std::string_view>> old_bytes;  // RowView::ColumnBytes: one per old column

  bool Stored(size_t i) const { return !changed[i] && i < old_bytes.size(); }
  // A column not Stored: its new value, or nullptr for NULL (past `missing`).
  const Value* Fresh(size_t i) const {
    if (changed[i]) return &values[i];
    return i < missing.size() ? &missing[i] : nullptr;
  }
  bool IsNull(size_t i) const {
    if (Stored(i)) return !old_bytes[i];
    const Value* v = Fresh(i);
    return v == nullptr || v->IsNull();
  }
  uint64_t Slot(size_t i) const {
    return Stored(i) ? LoadLE<uint64_t>(old_bytes[i]->data()) : FixedBits(*Fresh(i), schema.columns[i]);
  }
  size_t SizeHint(size_t i) const {
    if (Stored(i)) return old_bytes[i]->size();
    const auto* s = std::get_if<std::string>(&Fresh(i)->data);
    return s != nullptr ? s->size() : 0;
  }
  void AppendVariable(std::string& out, size_t i) const {
    if (Stored(i)) {
      out += *old_bytes[i];
    } else {
      storage::AppendVariable(out, *Fresh(i), schema.columns[i]);
    }
  }
};

// PatchRow's common case, an UPDATE of counters and the like: when every changed column is
// fixed-width and stays non-NULL, and `old` has this schema's columns, the layout is unchanged,
// so the new row is the old bytes with those slots overwritten. nullopt otherwise.
std::optional<std::string> PatchSlots(const RowSchema& schema, const RowView& old,
                                      std::span<const Value> values, const std::vector<bool>& changed) {
  const size_t n = schema.columns.size();
  if (old.schema_version() != schema.version || old.column_count() != n) return std::nullopt;
  for (size_t i = 0; i < n; ++i) {
    if (changed[i] && (IsVariableWidth(schema.columns[i]) || values[i].IsNull() || old.IsNull(i))) {
      return std::nullopt;
    }
  }
  std::string out(old.bytes());
  for (size_t i = 0; i < n; ++i) {
    if (changed[i]) StoreLE<uint64_t>(out.data() + old.FixedSlotOffset(i), FixedBits(values[i], schema.columns[i]));
  }
  return out;
}

// The row layout (row.h) over any source of columns. The bitmaps go first, counting the slots
// and offsets they imply, so every fixed-width slot is then stored in place and the buffer is
// allocated once (strings exactly; a fresh numeric may grow it).
template <typename Columns>
std::string Encode(const RowSchema& schema, const Columns& columns) {
  const size_t n = schema.columns.size();
  const size_t bitmap_bytes = (n + 7) / 8;
  const size_t null_at = kHeaderBytes, variable_at = kHeaderBytes + bitmap_bytes;
  std::string out(kHeaderBytes + 2 * bitmap_bytes, '\0');
  StoreLE<uint16_t>(out.data(), schema.version);
  StoreLE<uint16_t>(out.data() + 2, static_cast<uint16_t>(n));
  auto bit = [&](size_t at, size_t i) { return (out[at + i / 8] >> (i % 8)) & 1; };
  size_t fixed_count = 0, var_count = 0, var_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool variable = IsVariableWidth(schema.columns[i]);
    const bool is_null = columns.IsNull(i);
    if (is_null) out[null_at + i / 8] |= static_cast<char>(1 << (i % 8));
    if (variable) out[variable_at + i / 8] |= static_cast<char>(1 << (i % 8));
    if (is_null) continue;
    if (variable) {
      ++var_count;
      var_bytes += columns.SizeHint(i);
    } else {
      ++fixed_count;
    }
  }
  const size_t fixed_at = out.size();
  const size_t offsets_at = fixed_at + kSlotBytes * fixed_count;
  const size_t var_at = offsets_at + kOffsetBytes * var_count;
  out.reserve(var_at + var_bytes);
  out.resize(var_at);
  char* slot = out.data() + fixed_at;
  for (size_t i = 0; i < n; ++i) {
    if (bit(null_at, i) || bit(variable_at, i)) continue;
    StoreLE<uint64_t>(slot, columns.Slot(i));
    slot += kSlotBytes;
  }
  size_t k = 0;
  for (size_t i = 0; i < n && k < var_count; ++i) {
    if (bit(null_at, i) || !bit(variable_at, i)) continue;
    columns.AppendVariable(out, i);
    StoreLE<uint32_t>(out.data() + offsets_at + kOffsetBytes * k++, static_cast<uint32_t>(out.size() - var_at));
  }
  return out;
}

}  // namespace

std::string EncodeRow(const RowSchema& schema, std::span<const Value> values) {
  return Encode(schema, ValueColumns{schema, values});
}

std::string PatchRow(const RowSchema& schema, const RowView& old, std::span<const Value> missing,
                     std::span<const Value> values, const std::vector<bool>& changed) {
  if (auto patched = PatchSlots(schema, old, values, changed)) return *std::move(patched);
  return Encode(schema, PatchedColumns(schema, old, missing, values, changed));
}

StorageResult<RowView> RowView::Parse(std::string_view bytes) {
  const auto corrupt = [] { return Failure(StorageError::Code::kCorrupt); };
  if (bytes.size() < kHeaderBytes) return corrupt();
  RowView r;
  r.bytes_ = bytes;
  r.version_ = LoadLE<uint16_t>(bytes.data());
  r.count_ = LoadLE<uint16_t>(bytes.data() + 2);
  r.bitmap_bytes_ = (r.count_ + 7) / 8;
  r.fixed_offset_ = kHeaderBytes + 2 * r.bitmap_bytes_;
  if (bytes.size() < r.fixed_offset_) return corrupt();
  if (r.count_ % 8 != 0) {
    const uint8_t unused = static_cast<uint8_t>(0xFF << (r.count_ % 8));
    if ((bytes[kHeaderBytes + r.bitmap_bytes_ - 1] & unused) != 0 ||
        (bytes[r.fixed_offset_ - 1] & unused) != 0) {
      return corrupt();
    }
  }
  const size_t fixed_count = r.CountBefore(r.count_, false);
  const size_t var_count = r.CountBefore(r.count_, true);
  r.offsets_offset_ = static_cast<uint32_t>(r.fixed_offset_ + kSlotBytes * fixed_count);
  r.var_offset_ = static_cast<uint32_t>(r.offsets_offset_ + kOffsetBytes * var_count);
  if (bytes.size() < r.var_offset_) return corrupt();
  uint32_t previous = 0;
  for (size_t k = 0; k < var_count; ++k) {
    uint32_t end = LoadLE<uint32_t>(bytes.data() + r.offsets_offset_ + kOffsetBytes * k);
    if (end < previous) return corrupt();
    previous = end;
  }
  if (bytes.size() - r.var_offset_ != previous) return corrupt();
  return r;
}

bool RowView::Bit(size_t bitmap_offset, size_t i) const {
  return (static_cast<uint8_t>(bytes_[bitmap_offset + i / 8]) >> (i % 8)) & 1;
}

size_t RowView::CountBefore(size_t i, bool variable) const {
  const char* nulls = bytes_.data() + kHeaderBytes;
  const char* vars = nulls + bitmap_bytes_;
  size_t count = 0;
  for (size_t b = 0; b * 8 < i; ++b) {
    uint8_t present = ~static_cast<uint8_t>(nulls[b]);
    uint8_t kind = static_cast<uint8_t>(vars[b]);
    uint8_t selected = present & (variable ? kind : static_cast<uint8_t>(~kind));
    if (i - b * 8 < 8) selected &= static_cast<uint8_t>((1u << (i - b * 8)) - 1);
    count += std::popcount(selected);
  }
  return count;
}

bool RowView::IsNull(size_t i) const { return Bit(kHeaderBytes, i); }

size_t RowView::FixedSlotOffset(size_t i) const {
  return fixed_offset_ + kSlotBytes * CountBefore(i, false);
}

uint64_t RowView::FixedSlot(size_t i) const { return LoadLE<uint64_t>(bytes_.data() + FixedSlotOffset(i)); }

std::string_view RowView::GetBytes(size_t i) const {
  const size_t k = CountBefore(i, true);
  const char* offsets = bytes_.data() + offsets_offset_;
  const uint32_t begin = k == 0 ? 0 : LoadLE<uint32_t>(offsets + kOffsetBytes * (k - 1));
  const uint32_t end = LoadLE<uint32_t>(offsets + kOffsetBytes * k);
  return bytes_.substr(var_offset_ + begin, end - begin);
}

int64_t RowView::GetInt(size_t i) const { return static_cast<int64_t>(FixedSlot(i)); }

void RowView::ColumnBytes(std::vector<std::optional<std::string_view>>& out) const {
  out.assign(count_, std::nullopt);
  const char* offsets = bytes_.data() + offsets_offset_;
  size_t fixed = fixed_offset_;  // the next non-null fixed-width column's slot
  size_t var = 0;                // the next non-null variable-width column's end offset
  uint32_t begin = 0;
  for (size_t i = 0; i < count_; ++i) {
    if (IsNull(i)) continue;
    if (Bit(kHeaderBytes + bitmap_bytes_, i)) {
      const uint32_t end = LoadLE<uint32_t>(offsets + kOffsetBytes * var++);
      out[i] = bytes_.substr(var_offset_ + begin, end - begin);
      begin = end;
    } else {
      out[i] = bytes_.substr(fixed, kSlotBytes);
      fixed += kSlotBytes;
    }
  }
}

Value RowView::Get(size_t i, TypeId type) const {
  Value v;
  GetInto(i, type, v);
  return v;
}

namespace {
// `out` set to a T, assigned in place when it holds one (no variant reset, and a string keeps its
// buffer).
template <typename T, typename Arg>
void Assign(Value& out, Arg&& value) {
  if (T* held = std::get_if<T>(&out.data)) {
    *held = std::forward<Arg>(value);
  } else {
    out.data.emplace<T>(std::forward<Arg>(value));
  }
}
}  // namespace

void RowView::GetInto(size_t i, TypeId type, Value& out) const {
  out.type = type;
  if (IsMissing(i) || IsNull(i)) {
    Assign<std::monostate>(out, std::monostate{});
    return;
  }
  if (IsVariableWidth(type) != Bit(kHeaderBytes + bitmap_bytes_, i)) RowInvariantBroken();
  switch (type) {
    case TypeId::kBool:
      return Assign<bool>(out, FixedSlot(i) != 0);
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kOid:
    case TypeId::kRegclass:
    case TypeId::kRegtype:
    case TypeId::kRegproc:
    case TypeId::kRegnamespace:
      return Assign<int64_t>(out, GetInt(i));
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return Assign<double>(out, std::bit_cast<double>(FixedSlot(i)));
    case TypeId::kNumeric: {
      BinaryReader reader(GetBytes(i));
      auto n = Numeric::DecodeBinary(reader);
      if (!n || !reader.AtEnd()) RowInvariantBroken();
      return Assign<Numeric>(out, std::move(*n));
    }
    case TypeId::kUnknown:
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
    case TypeId::kName:
    case TypeId::kBytea:
    case TypeId::kChar:
    case TypeId::kPgNodeTree:
    case TypeId::kVoid:
    case TypeId::kAclitem:
      return Assign<std::string>(out, GetBytes(i));
    // Containers and pseudo-types: no column has one (the DDL checks IsStorable).
    FARMDB_UNSTORABLE_TYPE_CASES:
      RowInvariantBroken();
  }
  RowInvariantBroken();
}

}  // namespace farmdb::storage
