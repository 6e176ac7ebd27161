// FunctionSignature: one overload of a built-in function, as the binder's overload resolution
// (bind_function.cc) sees it; the catalog functions' overloads (bind_catalog_function.cc) use
// the same shape.
//
// Thread-safety: immutable tables.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "sql/bind/bound_expr.h"

namespace farmdb::sql {

struct FunctionSignature {
  std::string_view name;
  Function function;
  std::vector<TypeId> args;
  TypeId result;  // kUnknown: same as the first argument
};

// format_type, pg_get_indexdef, pg_table_is_visible, ... (bind_catalog_function.cc).
std::span<const FunctionSignature> CatalogFunctionSignatures();

}  // namespace farmdb::sql
