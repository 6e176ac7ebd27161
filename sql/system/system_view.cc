// The registry of system views (system_view.h) and RowBuilder (generated_view.h).
#include "sql/system/system_view.h"

#include <cstdlib>

#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

const std::vector<std::unique_ptr<SystemView>>& Registry() {
  // Built once on first use and never changed: immutable shared state, not a mutable global.
  static const std::vector<std::unique_ptr<SystemView>> kViews = [] {
    std::vector<std::unique_ptr<SystemView>> views;
    AppendPgClassViews(views);
    AppendPgAttributeViews(views);
    AppendPgTypeViews(views);
    AppendPgIndexViews(views);
    AppendPgRoleViews(views);
    AppendEmptyViews(views);
    AppendInformationSchemaViews(views);
    AppendPgTablesViews(views);
    AppendFarmdbStatViews(views);
    return views;
  }();
  return kViews;
}

size_t ColumnIndex(const std::vector<SystemColumn>& columns, std::string_view column) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == column) return i;
  }
  std::abort();  // a generator naming a column its view does not have
}

}  // namespace

const SystemView* FindSystemView(std::string_view schema, std::string_view name) {
  for (const auto& view : Registry()) {
    if (view->schema() == schema && view->name() == name) return view.get();
  }
  return nullptr;
}

const SystemView* SystemViewByOid(Oid oid) {
  for (const auto& view : Registry()) {
    if (view->oid() == oid) return view.get();
  }
  return nullptr;
}

std::vector<const SystemView*> AllSystemViews() {
  std::vector<const SystemView*> out;
  for (const auto& view : Registry()) out.push_back(view.get());
  return out;
}

RowBuilder& RowBuilder::Set(std::string_view column, Value value) {
  size_t i = ColumnIndex(columns_, column);
  if (!value.IsNull() && value.type != columns_[i].type) std::abort();
  value.type = columns_[i].type;
  values_[i] = std::move(value);
  return *this;
}

RowBuilder& RowBuilder::SetNull(std::string_view column) {
  size_t i = ColumnIndex(columns_, column);
  values_[i] = Value::Null(columns_[i].type);
  return *this;
}

std::vector<Value> RowBuilder::Take() {
  std::vector<Value> row;
  row.reserve(values_.size());
  for (auto& v : values_) {
    if (!v) std::abort();  // a column the generator forgot
    row.push_back(std::move(*v));
  }
  return row;
}

ViewRows NoRows(const SystemViewContext&, const std::vector<SystemColumn>&) { return {}; }

}  // namespace farmdb::sql
