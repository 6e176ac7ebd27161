// GeneratedView: a SystemView whose rows a plain function computes from the catalog snapshot,
// and RowBuilder, which fills one row by column name so a view's columns (PostgreSQL 15's
// names, in its order) and its generator cannot drift apart silently.
//
// Thread-safety: views are immutable; a RowBuilder belongs to one Rows() call.
// Invariant: every row a view returns has one Value per column, NULL or of the column's type
// (RowBuilder aborts otherwise: a bug in the generator, caught by system_view_test).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/system/system_view.h"

namespace farmdb::sql {

using ViewRows = std::vector<std::vector<Value>>;

class GeneratedView final : public SystemView {
 public:
  using RowsFn = ViewRows (*)(const SystemViewContext&, const std::vector<SystemColumn>&);
  GeneratedView(std::string_view schema, std::string_view name, Oid oid, char relkind, std::vector<SystemColumn> columns,
                RowsFn rows)
      : schema_(schema), name_(name), oid_(oid), relkind_(relkind), columns_(std::move(columns)), rows_(rows) {}

  std::string_view schema() const override { return schema_; }
  std::string_view name() const override { return name_; }
  Oid oid() const override { return oid_; }
  char relkind() const override { return relkind_; }
  const std::vector<SystemColumn>& columns() const override { return columns_; }
  ViewRows Rows(const SystemViewContext& context) const override { return rows_(context, columns_); }

 private:
  std::string schema_;
  std::string name_;
  Oid oid_;
  char relkind_;
  std::vector<SystemColumn> columns_;
  RowsFn rows_;
};

class RowBuilder {
 public:
  explicit RowBuilder(const std::vector<SystemColumn>& columns) : columns_(columns), values_(columns.size()) {}
  // Sets `column` (which must exist) to `value` (NULL or of the column's type).
  RowBuilder& Set(std::string_view column, Value value);
  RowBuilder& SetNull(std::string_view column);
  // The row; every column must have been set.
  std::vector<Value> Take();

 private:
  const std::vector<SystemColumn>& columns_;
  std::vector<std::optional<Value>> values_;
};

// Value constructors for the catalog's column types.
inline Value OidValue(int64_t oid) { return Value::Int(TypeId::kOid, oid); }
inline Value NameValue(std::string_view s) { return Value::Str(TypeId::kName, std::string(s)); }
inline Value TextValue(std::string_view s) { return Value::Str(TypeId::kText, std::string(s)); }
inline Value CharValue(char c) { return Value::Str(TypeId::kChar, c == '\0' ? std::string() : std::string(1, c)); }
inline Value BoolValue(bool b) { return Value::Bool(b); }
inline Value Int2Value(int64_t v) { return Value::Int(TypeId::kInt2, v); }
inline Value Int4Value(int64_t v) { return Value::Int(TypeId::kInt4, v); }

// A view with no rows (catalogs of features farmdb does not have: policies, publications,
// inheritance, extended statistics, comments).
ViewRows NoRows(const SystemViewContext&, const std::vector<SystemColumn>&);

// Well-known OIDs of PostgreSQL 15 that the views use.
inline constexpr Oid kInformationSchemaNamespace = 13207;  // initdb-assigned; PG 15.18's value
inline constexpr Oid kPgDatabaseOwner = 6171;               // the public schema's owner role
inline constexpr Oid kHeapAm = 2, kBtreeAm = 403, kHashAm = 405;
inline constexpr Oid kDefaultCollation = 100, kCCollation = 950, kPosixCollation = 951;
inline constexpr Oid kPgClassRelation = 1259;  // pg_class's own OID (pg_description.classoid)

// A sequence relation's columns (last_value, log_cnt, is_called), as pg_attribute lists them.
const std::vector<SystemColumn>& SequenceColumns();

// Each file's views, appended to the registry (system_view.cc).
void AppendPgClassViews(std::vector<std::unique_ptr<SystemView>>& views);      // pg_class.cc
void AppendPgAttributeViews(std::vector<std::unique_ptr<SystemView>>& views);  // pg_attribute.cc
void AppendPgTypeViews(std::vector<std::unique_ptr<SystemView>>& views);       // pg_type.cc
void AppendPgIndexViews(std::vector<std::unique_ptr<SystemView>>& views);      // pg_index.cc
void AppendPgRoleViews(std::vector<std::unique_ptr<SystemView>>& views);       // pg_roles.cc
void AppendEmptyViews(std::vector<std::unique_ptr<SystemView>>& views);        // pg_empty.cc
void AppendInformationSchemaViews(std::vector<std::unique_ptr<SystemView>>& views);  // information_schema.cc
void AppendPgTablesViews(std::vector<std::unique_ptr<SystemView>>& views);     // pg_tables.cc
void AppendFarmdbStatViews(std::vector<std::unique_ptr<SystemView>>& views);   // farmdb_stat.cc

}  // namespace farmdb::sql
