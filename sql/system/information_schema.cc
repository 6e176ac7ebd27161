// information_schema.schemata, tables and columns, computed from the catalog as PostgreSQL 15's
// information_schema views compute them for a superuser (who sees every object).
//
// PostgreSQL declares these columns with the information_schema domains sql_identifier,
// character_data, cardinal_number and yes_or_no; farmdb has no domains, so they are their base
// types (name, varchar, int4, varchar): the same values, reported with the base type's OID.
#include "sql/system/catalog_functions.h"
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

Value Varchar(std::string_view s) { return Value::Str(kVarchar, std::string(s)); }
Value Cardinal(int64_t v) { return Value::Int(kInt4, v); }
Value YesOrNo(bool b) { return Varchar(b ? "YES" : "NO"); }

ViewRows SchemataRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  const SystemView* namespaces = FindSystemView("pg_catalog", "pg_namespace");
  for (const auto& nsp : namespaces->Rows(ctx)) {
    rows.push_back(RowBuilder(columns)
                       .Set("catalog_name", NameValue(ctx.database)).Set("schema_name", nsp[1])
                       .Set("schema_owner", NameValue(PgGetUserById(ctx, static_cast<Oid>(nsp[2].AsInt()))))
                       .SetNull("default_character_set_catalog").SetNull("default_character_set_schema")
                       .SetNull("default_character_set_name").SetNull("sql_path")
                       .Take());
  }
  return rows;
}

std::string_view SchemaName(const SystemViewContext& ctx, Oid nsp) {
  const storage::NamespaceDesc* n = ctx.catalog.NamespaceByOid(nsp);
  return n ? std::string_view(n->nspname) : std::string_view();
}

ViewRows TablesRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    rows.push_back(RowBuilder(columns)
                       .Set("table_catalog", NameValue(ctx.database))
                       .Set("table_schema", NameValue(SchemaName(ctx, t.relnamespace)))
                       .Set("table_name", NameValue(t.relname)).Set("table_type", Varchar("BASE TABLE"))
                       .SetNull("self_referencing_column_name").SetNull("reference_generation")
                       .SetNull("user_defined_type_catalog").SetNull("user_defined_type_schema")
                       .SetNull("user_defined_type_name").Set("is_insertable_into", YesOrNo(true))
                       .Set("is_typed", YesOrNo(false)).SetNull("commit_action")
                       .Take());
  }
  return rows;
}

// _pg_char_max_length, _pg_char_octet_length, _pg_numeric_precision, _pg_numeric_precision_radix,
// _pg_numeric_scale and _pg_datetime_precision of information_schema.sql.
void SetTypeFacts(RowBuilder& r, const storage::ColumnDesc& c) {
  for (const char* column : {"character_maximum_length", "character_octet_length", "numeric_precision",
                             "numeric_precision_radix", "numeric_scale", "datetime_precision"}) {
    r.SetNull(column);
  }
  int32_t mod = c.atttypmod;
  switch (c.type) {
    case kVarchar:
    case kBpchar:
    case kText:
      if (c.type != kText && mod >= 4) {
        r.Set("character_maximum_length", Cardinal(mod - 4)).Set("character_octet_length", Cardinal((mod - 4) * 4));
      } else {
        r.Set("character_octet_length", Cardinal(1073741824));  // 1 GB, the varlena limit
      }
      break;
    case kInt2:
    case kInt4:
    case kInt8:
      r.Set("numeric_precision", Cardinal(c.type == kInt2 ? 16 : c.type == kInt4 ? 32 : 64))
          .Set("numeric_precision_radix", Cardinal(2)).Set("numeric_scale", Cardinal(0));
      break;
    case kFloat4:
    case kFloat8:
      r.Set("numeric_precision", Cardinal(c.type == kFloat4 ? 24 : 53)).Set("numeric_precision_radix", Cardinal(2));
      break;
    case kNumeric:
      r.Set("numeric_precision_radix", Cardinal(10));
      if (mod >= 4) {
        r.Set("numeric_precision", Cardinal((mod - 4) >> 16)).Set("numeric_scale", Cardinal((mod - 4) & 0xffff));
      }
      break;
    case kDate:
      r.Set("datetime_precision", Cardinal(0));
      break;
    case kTimestamp:
    case kTimestampTz:
      r.Set("datetime_precision", Cardinal(mod >= 0 ? mod : 6));
      break;
    default:
      break;
  }
}

ViewRows ColumnsRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::ColumnDesc& c : t.columns) {
      if (c.attisdropped) continue;
      RowBuilder r(columns);
      r.Set("table_catalog", NameValue(ctx.database)).Set("table_schema", NameValue(SchemaName(ctx, t.relnamespace)))
          .Set("table_name", NameValue(t.relname)).Set("column_name", NameValue(c.attname))
          .Set("ordinal_position", Cardinal(c.attnum)).Set("is_nullable", YesOrNo(!c.attnotnull))
          .Set("data_type", Varchar(FormatType(Info(c.type).oid, std::nullopt)))
          .Set("udt_catalog", NameValue(ctx.database)).Set("udt_schema", NameValue("pg_catalog"))
          .Set("udt_name", NameValue(Info(c.type).name)).Set("dtd_identifier", NameValue(std::to_string(c.attnum)))
          .Set("is_self_referencing", YesOrNo(false)).Set("is_identity", YesOrNo(false))
          .Set("is_generated", Varchar("NEVER")).Set("is_updatable", YesOrNo(true));
      if (c.default_expr) r.Set("column_default", Varchar(*c.default_expr));
      else r.SetNull("column_default");
      SetTypeFacts(r, c);
      for (const char* column : {"interval_type", "interval_precision", "character_set_catalog", "character_set_schema",
                                 "character_set_name", "collation_catalog", "collation_schema", "collation_name",
                                 "domain_catalog", "domain_schema", "domain_name", "scope_catalog", "scope_schema",
                                 "scope_name", "maximum_cardinality", "identity_generation", "identity_start",
                                 "identity_increment", "identity_maximum", "identity_minimum", "identity_cycle",
                                 "generation_expression"}) {
        r.SetNull(column);
      }
      // identity_cycle is 'NO' for every column in PostgreSQL 15 (not NULL).
      r.Set("identity_cycle", YesOrNo(false));
      rows.push_back(r.Take());
    }
  }
  return rows;
}

}  // namespace

void AppendInformationSchemaViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "information_schema", "schemata", 13382, 'v',
      std::vector<SystemColumn>{{"catalog_name", kName}, {"schema_name", kName}, {"schema_owner", kName},
                                {"default_character_set_catalog", kName}, {"default_character_set_schema", kName},
                                {"default_character_set_name", kName}, {"sql_path", kVarchar}},
      SchemataRows));
  views.push_back(std::make_unique<GeneratedView>(
      "information_schema", "tables", 13425, 'v',
      std::vector<SystemColumn>{{"table_catalog", kName}, {"table_schema", kName}, {"table_name", kName},
                                {"table_type", kVarchar}, {"self_referencing_column_name", kName},
                                {"reference_generation", kVarchar}, {"user_defined_type_catalog", kName},
                                {"user_defined_type_schema", kName}, {"user_defined_type_name", kName},
                                {"is_insertable_into", kVarchar}, {"is_typed", kVarchar}, {"commit_action", kVarchar}},
      TablesRows));
  std::vector<SystemColumn> columns;
  for (auto [name, type] : std::initializer_list<std::pair<const char*, TypeId>>{
           {"table_catalog", kName}, {"table_schema", kName}, {"table_name", kName}, {"column_name", kName},
           {"ordinal_position", kInt4}, {"column_default", kVarchar}, {"is_nullable", kVarchar},
           {"data_type", kVarchar}, {"character_maximum_length", kInt4}, {"character_octet_length", kInt4},
           {"numeric_precision", kInt4}, {"numeric_precision_radix", kInt4}, {"numeric_scale", kInt4},
           {"datetime_precision", kInt4}, {"interval_type", kVarchar}, {"interval_precision", kInt4},
           {"character_set_catalog", kName}, {"character_set_schema", kName}, {"character_set_name", kName},
           {"collation_catalog", kName}, {"collation_schema", kName}, {"collation_name", kName},
           {"domain_catalog", kName}, {"domain_schema", kName}, {"domain_name", kName}, {"udt_catalog", kName},
           {"udt_schema", kName}, {"udt_name", kName}, {"scope_catalog", kName}, {"scope_schema", kName},
           {"scope_name", kName}, {"maximum_cardinality", kInt4}, {"dtd_identifier", kName},
           {"is_self_referencing", kVarchar}, {"is_identity", kVarchar}, {"identity_generation", kVarchar},
           {"identity_start", kVarchar}, {"identity_increment", kVarchar}, {"identity_maximum", kVarchar},
           {"identity_minimum", kVarchar}, {"identity_cycle", kVarchar}, {"is_generated", kVarchar},
           {"generation_expression", kVarchar}, {"is_updatable", kVarchar}}) {
    columns.push_back({name, type});
  }
  views.push_back(std::make_unique<GeneratedView>("information_schema", "columns", 13295, 'v', std::move(columns), ColumnsRows));
}

}  // namespace farmdb::sql
