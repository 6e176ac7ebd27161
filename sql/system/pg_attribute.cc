// pg_attribute and pg_attrdef: the columns of tables and indexes, and column defaults.
//
// pg_attrdef.adbin holds the default as SQL text (what pg_get_expr prints), since farmdb stores
// defaults as deparsed SQL rather than as PostgreSQL node trees; pg_attrdef has no oid column
// because farmdb's defaults have no OIDs of their own. System columns (ctid, xmin, ...) do not
// exist in farmdb and have no rows.
#include <fmt/format.h>

#include "sql/system/generated_view.h"
#include "sql/system/pg_type_rows.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

void AddAttribute(ViewRows& rows, const std::vector<SystemColumn>& columns, Oid relid, int16_t attnum,
                  const storage::ColumnDesc& col, bool table_column) {
  const PgTypeRow* type = PgTypeByOid(Info(col.type).oid);
  RowBuilder r(columns);
  r.Set("attrelid", OidValue(relid)).Set("attnum", Int2Value(attnum)).Set("attstattarget", Int4Value(-1))
      .Set("attndims", Int4Value(0)).Set("attcacheoff", Int4Value(-1)).Set("atttypmod", Int4Value(col.atttypmod))
      .Set("attcompression", CharValue('\0')).Set("attidentity", CharValue('\0'))
      .Set("attgenerated", CharValue('\0')).Set("attislocal", BoolValue(true))
      .Set("attinhcount", Int4Value(0));
  r.Set("attlen", Int2Value(type ? type->typlen : -1)).Set("attbyval", BoolValue(type && type->typbyval))
      .Set("attalign", CharValue(type ? type->typalign : 'i')).Set("attstorage", CharValue(type ? type->typstorage : 'p'));
  if (col.attisdropped) {
    // RemoveAttributeById: the name is replaced and the type forgotten.
    r.Set("attname", NameValue(fmt::format("........pg.dropped.{}........", attnum))).Set("atttypid", OidValue(0))
        .Set("attnotnull", BoolValue(false)).Set("atthasdef", BoolValue(false))
        .Set("atthasmissing", BoolValue(false)).Set("attisdropped", BoolValue(true))
        .Set("attcollation", OidValue(0));
  } else {
    r.Set("attname", NameValue(col.attname)).Set("atttypid", OidValue(col.atttypid()))
        .Set("attnotnull", BoolValue(table_column && col.attnotnull))
        .Set("atthasdef", BoolValue(table_column && col.default_expr.has_value()))
        .Set("atthasmissing", BoolValue(table_column && col.attmissingval.has_value()))
        .Set("attisdropped", BoolValue(false)).Set("attcollation", OidValue(type ? type->typcollation : 0));
  }
  rows.push_back(r.Take());
}

ViewRows AttributeRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::ColumnDesc& col : t.columns) AddAttribute(rows, columns, oid, col.attnum, col, true);
    // An index's columns are its key columns, numbered from 1 (pg_attribute rows of the index).
    for (const storage::IndexDesc& index : t.indexes) {
      for (size_t i = 0; i < index.keys.size(); ++i) {
        const storage::ColumnDesc& col = t.columns[index.keys[i].attnum - 1];
        AddAttribute(rows, columns, index.oid, static_cast<int16_t>(i + 1), col, false);
      }
    }
  }
  auto add_columns = [&](Oid relid, const std::vector<SystemColumn>& relation_columns, bool notnull) {
    for (size_t i = 0; i < relation_columns.size(); ++i) {
      const SystemColumn& c = relation_columns[i];
      storage::ColumnDesc col;
      col.attnum = static_cast<int16_t>(i + 1);
      col.attname = c.name;
      col.type = c.type;
      col.atttypmod = c.typmod;
      col.attnotnull = notnull;
      AddAttribute(rows, columns, relid, col.attnum, col, true);
    }
  };
  for (const auto& [oid, s] : ctx.catalog.sequences()) add_columns(oid, SequenceColumns(), true);
  // The system views' columns, so \d pg_class describes the view farmdb has.
  for (const SystemView* view : AllSystemViews()) add_columns(view->oid(), view->columns(), false);
  return rows;
}

ViewRows AttrdefRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::ColumnDesc& col : t.columns) {
      if (col.attisdropped || !col.default_expr) continue;
      rows.push_back(RowBuilder(columns).Set("adrelid", OidValue(oid)).Set("adnum", Int2Value(col.attnum))
                         .Set("adbin", Value::Str(kPgNodeTree, *col.default_expr)).Take());
    }
  }
  return rows;
}

}  // namespace

const std::vector<SystemColumn>& SequenceColumns() {
  static const std::vector<SystemColumn> kColumns = {
      {"last_value", kInt8}, {"log_cnt", kInt8}, {"is_called", kBool}};
  return kColumns;
}

void AppendPgAttributeViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_attribute", 1249, 'r',
      std::vector<SystemColumn>{
          {"attrelid", kOid}, {"attname", kName}, {"atttypid", kOid}, {"attstattarget", kInt4}, {"attlen", kInt2},
          {"attnum", kInt2}, {"attndims", kInt4}, {"attcacheoff", kInt4}, {"atttypmod", kInt4}, {"attbyval", kBool},
          {"attalign", kChar}, {"attstorage", kChar}, {"attcompression", kChar}, {"attnotnull", kBool},
          {"atthasdef", kBool}, {"atthasmissing", kBool}, {"attidentity", kChar}, {"attgenerated", kChar},
          {"attisdropped", kBool}, {"attislocal", kBool}, {"attinhcount", kInt4}, {"attcollation", kOid}},
      AttributeRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_attrdef", 2604, 'r',
      std::vector<SystemColumn>{{"adrelid", kOid}, {"adnum", kInt2}, {"adbin", kPgNodeTree}}, AttrdefRows));
}

}  // namespace farmdb::sql
