// Name scopes of query binding: the columns a query block's FROM makes visible, each at its slot
// of the block's row (plan.h), and the enclosing block's scope for correlated references.
//
// Thread-safety: one binder's, on one thread.
#pragma once

#include <string>
#include <vector>

#include "sql/bind/bound_expr.h"
#include "types/type.h"

namespace farmdb::sql {

struct ScopeColumn {
  std::string qualifier;  // the FROM item's alias, or the relation's name
  std::string name;
  TypeId type = TypeId::kUnknown;
  int32_t typmod = -1;
  int slot = 0;
  Oid table_oid = 0;  // a table's column: RowDescription's table OID and attnum
  int16_t attnum = 0;
  bool in_star = true;       // expanded by * (false for dropped columns and USING's right side)
  bool unqualified = true;   // found by an unqualified name (false for USING's right side)
  RecordTypePtr record = nullptr;  // type kRecord: its fields
};

struct Scope {
  std::vector<ScopeColumn> columns;
  const Scope* parent = nullptr;  // the enclosing query block's scope
  // This scope's columns read by correlated references of subqueries being bound (at any
  // depth), in binding order; BindSubquery moves those of each subquery onto its expression.
  // Mutable: the subqueries' binders reach this scope through `parent`, which is const.
  mutable std::vector<OuterColumnRead> subquery_reads;
  // Whether a qualifier names a FROM item of this block (42P01 "missing FROM-clause entry").
  bool HasQualifier(std::string_view q) const {
    for (const ScopeColumn& c : columns) {
      if (c.qualifier == q) return true;
    }
    return false;
  }
};

}  // namespace farmdb::sql
