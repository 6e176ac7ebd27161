// DROP TABLE/INDEX/SEQUENCE, CREATE INDEX, TRUNCATE and CREATE SEQUENCE.
#include <algorithm>
#include <charconv>
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

std::string_view ObjectName(PgQuery__ObjectType type) {
  switch (type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
      return "DROP VIEW";
    case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW:
      return "DROP MATERIALIZED VIEW";
    case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA:
      return "DROP SCHEMA";
    case PG_QUERY__OBJECT_TYPE__OBJECT_TYPE:
      return "DROP TYPE";
    case PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION:
      return "DROP FUNCTION";
    default:
      return "DROP";
  }
}

}  // namespace

std::expected<DropStmt, Error> Transformer::TransformDrop(const PgQuery__DropStmt& stmt) {
  DropStmt drop;
  switch (stmt.remove_type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
      drop.object = DropStmt::Object::kTable;
      break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX:
      drop.object = DropStmt::Object::kIndex;
      break;
    case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
      drop.object = DropStmt::Object::kSequence;
      break;
    default:
      return std::unexpected(NotSupported(ObjectName(stmt.remove_type)));
  }
  if (stmt.concurrent) return std::unexpected(NotSupported("DROP INDEX CONCURRENTLY"));
  drop.if_exists = stmt.missing_ok;
  drop.cascade = stmt.behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
  for (size_t i = 0; i < stmt.n_objects; ++i) {
    const PgQuery__List& list = *stmt.objects[i]->list;
    std::vector<std::string> parts = StringList(list.items, list.n_items);
    if (parts.size() > 2) {
      return std::unexpected(MakeError(
          "0A000", fmt::format("cross-database references are not implemented: \"{}.{}.{}\"", parts[0], parts[1], parts[2])));
    }
    QualifiedName name;
    if (parts.size() == 2) name.schema = parts[0];
    name.name = parts.back();
    drop.names.push_back(std::move(name));
  }
  return drop;
}

std::expected<CreateIndexStmt, Error> Transformer::TransformCreateIndex(const PgQuery__IndexStmt& stmt) {
  if (stmt.concurrent) return std::unexpected(NotSupported("CREATE INDEX CONCURRENTLY"));
  if (stmt.n_index_including_params > 0) return std::unexpected(NotSupported("INCLUDE"));
  if (stmt.n_options > 0) return std::unexpected(NotSupported("index storage parameters"));
  if (stmt.where_clause != nullptr) return std::unexpected(NotSupported("partial indexes"));
  if (Given(stmt.table_space)) return std::unexpected(NotSupported("TABLESPACE"));
  if (stmt.nulls_not_distinct) return std::unexpected(NotSupported("NULLS NOT DISTINCT"));
  CreateIndexStmt index;
  index.name = Given(stmt.idxname) ? stmt.idxname : "";
  auto table = TransformRangeVar(*stmt.relation);
  if (!table) return std::unexpected(table.error());
  index.table = std::move(*table);
  index.unique = stmt.unique;
  index.if_not_exists = stmt.if_not_exists;
  index.method = Given(stmt.access_method) ? stmt.access_method : "btree";
  if (index.method != "btree" && index.method != "hash") {
    return std::unexpected(NotSupported(fmt::format("access method \"{}\"", index.method)));
  }
  for (size_t i = 0; i < stmt.n_index_params; ++i) {
    const PgQuery__IndexElem& elem = *stmt.index_params[i]->index_elem;
    if (!Given(elem.name)) return std::unexpected(NotSupported("indexes on expressions"));
    if (elem.n_collation > 0) return std::unexpected(NotSupported("COLLATE"));
    if (elem.n_opclass > 0) return std::unexpected(NotSupported("operator classes"));
    index.columns.push_back(IndexColumn{elem.name, elem.ordering == PG_QUERY__SORT_BY_DIR__SORTBY_DESC,
                                        NullsOrder(elem.nulls_ordering)});
  }
  return index;
}

std::expected<TruncateStmt, Error> Transformer::TransformTruncate(const PgQuery__TruncateStmt& stmt) {
  TruncateStmt truncate;
  for (size_t i = 0; i < stmt.n_relations; ++i) {
    auto name = TransformRangeVar(*stmt.relations[i]->range_var);
    if (!name) return std::unexpected(name.error());
    truncate.tables.push_back(std::move(*name));
  }
  truncate.restart_identity = stmt.restart_seqs;
  truncate.cascade = stmt.behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
  return truncate;
}

std::expected<CreateSequenceStmt, Error> Transformer::TransformCreateSequence(const PgQuery__CreateSeqStmt& stmt) {
  CreateSequenceStmt seq;
  auto name = TransformRangeVar(*stmt.sequence);
  if (!name) return std::unexpected(name.error());
  seq.sequence = std::move(*name);
  seq.if_not_exists = stmt.if_not_exists;
  std::vector<std::string_view> seen;
  for (size_t i = 0; i < stmt.n_options; ++i) {
    const PgQuery__DefElem& opt = *stmt.options[i]->def_elem;
    std::string_view option = opt.defname;
    // init_params: each option at most once.
    if (std::ranges::find(seen, option) != seen.end()) {
      return std::unexpected(ErrorAt("42601", "conflicting or redundant options", opt.location));
    }
    seen.push_back(option);
    // A number is an Integer node, or a Float holding digits beyond int4; NO MINVALUE and
    // NO MAXVALUE have no argument and mean the default.
    auto number = [&]() -> std::expected<std::optional<int64_t>, Error> {
      if (opt.arg == nullptr) return std::nullopt;
      if (opt.arg->node_case == PG_QUERY__NODE__NODE_INTEGER) return int64_t{opt.arg->integer->ival};
      std::string_view text = opt.arg->float_->fval;
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc::result_out_of_range) {
        return std::unexpected(MakeError("22003", fmt::format("value \"{}\" is out of range for type bigint", text)));
      }
      if (ec != std::errc() || ptr != text.data() + text.size()) {
        return std::unexpected(MakeError("22P02", fmt::format("invalid input syntax for type bigint: \"{}\"", text)));
      }
      return v;
    };
    std::optional<int64_t>* target = option == "start"       ? &seq.start
                                     : option == "increment" ? &seq.increment
                                     : option == "minvalue"  ? &seq.min_value
                                     : option == "maxvalue"  ? &seq.max_value
                                     : option == "cache"     ? &seq.cache
                                                             : nullptr;
    if (target != nullptr) {
      auto v = number();
      if (!v) return std::unexpected(v.error());
      *target = *v;
    } else if (option == "as") {
      const PgQuery__TypeName& type = *opt.arg->type_name;
      seq.as_type = TypeName{StringList(type.names, type.n_names), {}, type.location};
    } else if (option == "cycle") {
      seq.cycle = opt.arg->boolean->boolval;
    } else if (option == "owned_by") {
      seq.owned_by = StringList(opt.arg->list->items, opt.arg->list->n_items);
    } else {
      return std::unexpected(NotSupported(fmt::format("sequence option \"{}\"", option), opt.location));
    }
  }
  return seq;
}

}  // namespace farmdb::sql
