// COPY table [(columns)] FROM STDIN / TO STDOUT and COPY (SELECT ...) TO STDOUT, text or CSV.
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

std::string StringArg(const PgQuery__Node* arg) {
  if (arg == nullptr) return {};
  if (arg->node_case == PG_QUERY__NODE__NODE_STRING) return arg->string->sval;
  if (arg->node_case == PG_QUERY__NODE__NODE_INTEGER) return std::to_string(arg->integer->ival);
  if (arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN) return arg->boolean->boolval ? "true" : "false";
  return {};
}

}  // namespace

std::expected<CopyStmt, Error> Transformer::TransformCopy(const PgQuery__CopyStmt& stmt) {
  if ((stmt.filename != nullptr && *stmt.filename != '\0') || stmt.is_program) return std::unexpected(NotSupported("COPY to or from a file or program"));
  if (stmt.where_clause != nullptr) return std::unexpected(NotSupported("COPY ... WHERE"));
  CopyStmt copy;
  copy.is_from = stmt.is_from;
  if (stmt.relation != nullptr) {
    auto relation = TransformRangeVar(*stmt.relation);
    if (!relation) return std::unexpected(relation.error());
    copy.relation = std::move(*relation);
    copy.columns = StringList(stmt.attlist, stmt.n_attlist);
  } else if (stmt.query != nullptr && stmt.query->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) {
    auto select = TransformSelect(*stmt.query->select_stmt);
    if (!select) return std::unexpected(select.error());
    copy.query = std::make_unique<SelectStmt>(std::move(*select));
  } else {
    return std::unexpected(NotSupported("COPY of this statement"));
  }
  std::optional<std::string> delimiter, null_string;
  for (size_t i = 0; i < stmt.n_options; ++i) {
    const PgQuery__DefElem& opt = *stmt.options[i]->def_elem;
    std::string_view name = opt.defname;
    std::string value = StringArg(opt.arg);
    if (name == "format") {
      if (value == "csv") copy.csv = true;
      else if (value != "text") return std::unexpected(NotSupported(fmt::format("COPY format \"{}\"", value), opt.location));
    } else if (name == "header") {
      copy.header = opt.arg == nullptr || value == "true" || value == "on" || value == "1";
    } else if (name == "delimiter") {
      if (value.size() != 1) {
        return std::unexpected(ErrorAt("0A000", "COPY delimiter must be a single one-byte character", opt.location));
      }
      delimiter = value;
    } else if (name == "null") {
      null_string = value;
    } else if (name == "freeze") {
      // Frozen rows are a heap-visibility optimisation farmdb has no counterpart for: every
      // committed row is visible to later snapshots anyway. Accepted and ignored.
    } else {
      return std::unexpected(NotSupported(fmt::format("COPY option \"{}\"", name), opt.location));
    }
  }
  copy.delimiter = delimiter.value_or(copy.csv ? "," : "\t");
  copy.null_string = null_string.value_or(copy.csv ? "" : "\\N");
  return copy;
}

}  // namespace farmdb::sql
