#include "storage/row.h"

#include <gtest/gtest.h>

#include <random>

#include "storage/value_test_util.h"

namespace farmdb::storage {
namespace {

using testing::RandomValue;
using testing::SameValue;
using testing::StorableTypes;

struct RandomRow {
  RowSchema schema;
  std::vector<Value> values;
};

RandomRow MakeRow(std::mt19937_64& rng, size_t columns) {
  RandomRow r{{static_cast<uint16_t>(rng() % 5), {}}, {}};
  for (size_t i = 0; i < columns; ++i) {
    TypeId type = StorableTypes()[rng() % StorableTypes().size()];
    r.schema.columns.push_back(type);
    r.values.push_back(rng() % 4 == 0 ? Value::Null(type) : RandomValue(rng, type));
  }
  return r;
}

// Every column reads back exactly (numeric with its display scale), through Get and through the
// typeless accessors, for widths crossing bitmap byte boundaries.
TEST(RowTest, RandomRowsRoundTrip) {
  std::mt19937_64 rng(1);
  for (int iter = 0; iter < 3000; ++iter) {
    RandomRow row = MakeRow(rng, rng() % 20 == 0 ? 60 + rng() % 20 : rng() % 18);
    std::string bytes = EncodeRow(row.schema, row.values);
    auto view = RowView::Parse(bytes);
    ASSERT_TRUE(view.has_value()) << "iter " << iter;
    EXPECT_EQ(view->schema_version(), row.schema.version);
    ASSERT_EQ(view->column_count(), row.values.size());
    for (size_t i = 0; i < row.values.size(); ++i) {
      const Value& want = row.values[i];
      TypeId type = row.schema.columns[i];
      EXPECT_EQ(view->IsNull(i), want.IsNull());
      EXPECT_FALSE(view->IsMissing(i));
      Value got = view->Get(i, type);
      EXPECT_TRUE(SameValue(got, want)) << "iter " << iter << " column " << i;
      if (want.IsNull()) continue;
      if (IsVariableWidth(type)) {
        std::string_view b = view->GetBytes(i);
        // Zero copy: the bytes point into the row.
        EXPECT_GE(b.data(), bytes.data());
        EXPECT_LE(b.data() + b.size(), bytes.data() + bytes.size());
        if (type != TypeId::kNumeric) {
          EXPECT_EQ(b, want.AsString());
        }
      } else if (std::holds_alternative<int64_t>(want.data)) {
        EXPECT_EQ(view->GetInt(i), want.AsInt());
      }
    }
    EXPECT_TRUE(view->IsMissing(row.values.size()));
  }
}

// GetInto reads what Get reads whatever `out` held before: each row decodes into the values the
// previous row left (another type, NULL, a longer or shorter string of the same type).
TEST(RowTest, GetIntoOverwritesWhatTheValueHeld) {
  std::mt19937_64 rng(2);
  std::vector<Value> reused(18);
  for (int iter = 0; iter < 3000; ++iter) {
    RandomRow row = MakeRow(rng, rng() % 18);
    std::string bytes = EncodeRow(row.schema, row.values);
    auto view = RowView::Parse(bytes);
    ASSERT_TRUE(view.has_value()) << "iter " << iter;
    for (size_t i = 0; i < row.values.size(); ++i) {
      view->GetInto(i, row.schema.columns[i], reused[i]);
      EXPECT_EQ(reused[i].type, row.schema.columns[i]) << "iter " << iter << " column " << i;
      EXPECT_TRUE(SameValue(reused[i], row.values[i])) << "iter " << iter << " column " << i;
    }
  }
}

// PatchRow writes what EncodeRow writes for the merged row: changed columns from the new
// values, the others copied from the old row (whatever the new values hold for them), and
// columns the old row predates from `missing` or NULL. Half the rows change only fixed-width
// columns that stay non-NULL, which PatchRow stores over a copy of the old bytes when the old
// row has the current schema.
TEST(RowTest, PatchRowEqualsEncodeRowOfTheMergedRow) {
  std::mt19937_64 rng(2);
  for (int iter = 0; iter < 6000; ++iter) {
    RandomRow now = MakeRow(rng, rng() % 20 == 0 ? 60 + rng() % 20 : 1 + rng() % 18);
    const size_t n = now.values.size();
    // The old row: written when the table had its first `old_n` columns, under this schema
    // version or an older one.
    const size_t old_n = rng() % 3 == 0 ? rng() % (n + 1) : n;
    const bool same_version = old_n == n && rng() % 4 != 0;
    const bool slots_only = rng() % 2 == 0;
    RowSchema old_schema{static_cast<uint16_t>(now.schema.version + (same_version ? 0 : 1)), {}};
    // The defaults of columns added later: one per column up to `missing_n` (TableDescriptor).
    const size_t missing_n = rng() % (n + 1);
    std::vector<Value> old_values, missing;
    for (size_t i = 0; i < n; ++i) {
      TypeId type = now.schema.columns[i];
      if (i < old_n) {
        old_schema.columns.push_back(type);
        old_values.push_back(rng() % 4 == 0 ? Value::Null(type) : RandomValue(rng, type));
      }
      if (i < missing_n) missing.push_back(rng() % 4 == 0 ? Value::Null(type) : RandomValue(rng, type));
    }
    std::string old_bytes = EncodeRow(old_schema, old_values);
    auto old = RowView::Parse(old_bytes);
    ASSERT_TRUE(old.has_value());
    std::vector<bool> changed(n);
    std::vector<Value> merged;
    for (size_t i = 0; i < n; ++i) {
      TypeId type = now.schema.columns[i];
      changed[i] = rng() % 3 == 0;
      if (slots_only) {
        changed[i] = changed[i] && !IsVariableWidth(type) && i < old_n && !old_values[i].IsNull() &&
                     !now.values[i].IsNull();
      }
      merged.push_back(changed[i]      ? now.values[i]
                       : i < old_n     ? old_values[i]
                       : i < missing.size() ? missing[i]
                                            : Value::Null(type));
    }
    EXPECT_EQ(PatchRow(now.schema, *old, missing, now.values, changed), EncodeRow(now.schema, merged)) << "iter " << iter;
  }
}

TEST(RowTest, NumericKeepsDisplayScale) {
  RowSchema schema{1, {TypeId::kNumeric, TypeId::kNumeric}};
  std::vector<Value> values = {Value::Num(*Numeric::Parse("1.00")), Value::Num(*Numeric::Parse("-0.050"))};
  std::string bytes = EncodeRow(schema, values);
  auto view = RowView::Parse(bytes);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->Get(0, TypeId::kNumeric).AsNumeric().ToString(), "1.00");
  EXPECT_EQ(view->Get(1, TypeId::kNumeric).AsNumeric().ToString(), "-0.050");
}

// ALTER TABLE ADD COLUMN: a row written under the old schema reads the new column as missing.
TEST(RowTest, OlderRowHasMissingColumns) {
  RowSchema v1{1, {TypeId::kInt4, TypeId::kText}};
  std::vector<Value> values = {Value::Int(TypeId::kInt4, 7), Value::Str(TypeId::kText, "x")};
  std::string bytes = EncodeRow(v1, values);
  auto view = RowView::Parse(bytes);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->schema_version(), 1);
  EXPECT_EQ(view->column_count(), 2);
  EXPECT_TRUE(view->IsMissing(2));
  EXPECT_TRUE(view->Get(2, TypeId::kInt8).IsNull());
  EXPECT_EQ(view->GetInt(0), 7);
  EXPECT_EQ(view->GetBytes(1), "x");
}

TEST(RowTest, EmptyRowAndAllNulls) {
  std::string empty = EncodeRow(RowSchema{3, {}}, {});
  auto v = RowView::Parse(empty);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->column_count(), 0);
  EXPECT_EQ(v->schema_version(), 3);

  RowSchema schema{0, std::vector<TypeId>(9, TypeId::kText)};
  std::vector<Value> nulls(9, Value::Null(TypeId::kText));
  std::string bytes = EncodeRow(schema, nulls);
  // Header + two 2-byte bitmaps, nothing else: NULLs take no space.
  EXPECT_EQ(bytes.size(), 8u);
  auto view = RowView::Parse(bytes);
  ASSERT_TRUE(view.has_value());
  for (size_t i = 0; i < 9; ++i) EXPECT_TRUE(view->IsNull(i));
}

// Bad bytes are kCorrupt, never a view that reads out of bounds: every truncation, any extra
// byte, set bits past the last column, and decreasing end offsets.
TEST(RowTest, ParseRejectsCorruptBytes) {
  RowSchema schema{2, {TypeId::kInt8, TypeId::kText, TypeId::kBytea, TypeId::kBool, TypeId::kNumeric}};
  std::vector<Value> values = {Value::Int(TypeId::kInt8, -5), Value::Str(TypeId::kText, "hello"),
                               Value::Str(TypeId::kBytea, std::string("\0\1", 2)), Value::Bool(true),
                               Value::Num(*Numeric::Parse("12.5"))};
  const std::string bytes = EncodeRow(schema, values);
  ASSERT_TRUE(RowView::Parse(bytes).has_value());
  const auto is_corrupt = [](std::string_view b) {
    auto r = RowView::Parse(b);
    return !r.has_value() && r.error().code == StorageError::Code::kCorrupt;
  };
  for (size_t len = 0; len < bytes.size(); ++len) EXPECT_TRUE(is_corrupt(bytes.substr(0, len))) << len;
  EXPECT_TRUE(is_corrupt(bytes + 'x'));
  // 5 columns: bits 5..7 of each one-byte bitmap are unused.
  std::string stray_null = bytes;
  stray_null[4] = static_cast<char>(stray_null[4] | 0x80);
  EXPECT_TRUE(is_corrupt(stray_null));
  std::string stray_var = bytes;
  stray_var[5] = static_cast<char>(stray_var[5] | 0x20);
  EXPECT_TRUE(is_corrupt(stray_var));
  // Layout: 4 header + 2 bitmaps + 2 fixed slots (16) = offset table at 22; first end offset 5.
  std::string decreasing = bytes;
  ASSERT_EQ(decreasing[22], 5);
  decreasing[22] = 9;  // "hello" now ends after the bytea that follows it
  EXPECT_TRUE(is_corrupt(decreasing));
}

// Reading a column with the wrong width class (a catalog bug) stops rather than returning
// bytes of some other column.
TEST(RowDeathTest, WrongWidthClassAborts) {
  RowSchema schema{1, {TypeId::kInt8, TypeId::kText}};
  std::vector<Value> values = {Value::Int(TypeId::kInt8, 1), Value::Str(TypeId::kText, "abcdefgh")};
  std::string bytes = EncodeRow(schema, values);
  RowView view = RowView::Parse(bytes).value();
  EXPECT_DEATH(view.Get(0, TypeId::kText), "");
  EXPECT_DEATH(view.Get(1, TypeId::kInt8), "");
}

// The catalog types: oid/regclass/regtype fixed-width (values up to 2^32 - 1), "char" and
// pg_node_tree variable-width.
TEST(RowTest, CatalogTypesRoundTrip) {
  RowSchema schema{1, {TypeId::kOid, TypeId::kRegclass, TypeId::kChar, TypeId::kChar, TypeId::kPgNodeTree}};
  std::vector<Value> values = {Value::Int(TypeId::kOid, 4294967295), Value::Int(TypeId::kRegclass, 16385),
                               Value::Str(TypeId::kChar, "r"), Value::Str(TypeId::kChar, ""),
                               Value::Str(TypeId::kPgNodeTree, "(a > 0)")};
  std::string bytes = EncodeRow(schema, values);
  auto view = RowView::Parse(bytes);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->Get(0, TypeId::kOid).AsInt(), 4294967295);
  EXPECT_EQ(view->Get(1, TypeId::kRegclass).AsInt(), 16385);
  EXPECT_EQ(view->Get(2, TypeId::kChar).AsString(), "r");
  EXPECT_EQ(view->Get(3, TypeId::kChar).AsString(), "");
  EXPECT_EQ(view->Get(4, TypeId::kPgNodeTree).AsString(), "(a > 0)");
}

}  // namespace
}  // namespace farmdb::storage
