// CREATE SEQUENCE and DROP SEQUENCE through storage::Catalog. Options are checked and
// defaulted as PostgreSQL 15's init_params does (the order of its checks decides which error
// a statement with several bad options gets); OWNED BY as process_owned_by.
#include <fmt/format.h>

#include <limits>

#include "sql/exec/ddl_common.h"
#include "sql/exec/run_statement.h"

namespace farmdb::sql {
namespace {

Error InvalidOption(std::string message) { return MakeError("22023", std::move(message)); }

struct TypeRange {
  TypeId type;
  int64_t min, max;
};

TypeRange RangeOf(TypeId type) {
  switch (type) {
    case TypeId::kInt2:
      return {type, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case TypeId::kInt4:
      return {type, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      return {TypeId::kInt8, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

std::expected<storage::SequenceOptions, Error> Options(const CreateSequenceStmt& stmt, const DdlContext& ctx) {
  TypeRange range = RangeOf(TypeId::kInt8);
  if (stmt.as_type) {
    auto type = ResolveType(*stmt.as_type, ctx);
    if (!type) return std::unexpected(type.error());
    if (type->serial || !IsInteger(type->type)) {
      return std::unexpected(InvalidOption("sequence type must be smallint, integer, or bigint"));
    }
    range = RangeOf(type->type);
  }
  storage::SequenceOptions o;
  o.increment = stmt.increment.value_or(1);
  if (o.increment == 0) return std::unexpected(InvalidOption("INCREMENT must not be zero"));
  o.cycle = stmt.cycle;
  std::string_view type_name = Info(range.type).sql_name;
  o.max = stmt.max_value.value_or(o.increment > 0 ? range.max : -1);
  if (o.max < range.min || o.max > range.max) {
    return std::unexpected(
        InvalidOption(fmt::format("MAXVALUE ({}) is out of range for sequence data type {}", o.max, type_name)));
  }
  o.min = stmt.min_value.value_or(o.increment > 0 ? 1 : range.min);
  if (o.min < range.min || o.min > range.max) {
    return std::unexpected(
        InvalidOption(fmt::format("MINVALUE ({}) is out of range for sequence data type {}", o.min, type_name)));
  }
  if (o.min >= o.max) {
    return std::unexpected(InvalidOption(fmt::format("MINVALUE ({}) must be less than MAXVALUE ({})", o.min, o.max)));
  }
  o.start = stmt.start.value_or(o.increment > 0 ? o.min : o.max);
  if (o.start < o.min) {
    return std::unexpected(
        InvalidOption(fmt::format("START value ({}) cannot be less than MINVALUE ({})", o.start, o.min)));
  }
  if (o.start > o.max) {
    return std::unexpected(
        InvalidOption(fmt::format("START value ({}) cannot be greater than MAXVALUE ({})", o.start, o.max)));
  }
  o.cache = stmt.cache.value_or(1);
  if (o.cache <= 0) return std::unexpected(InvalidOption(fmt::format("CACHE ({}) must be greater than zero", o.cache)));
  return o;
}

// OWNED BY [schema.]table.column | NONE: the (table, attnum) the sequence goes with.
std::expected<std::optional<std::pair<Oid, int16_t>>, Error> OwnedBy(const storage::CatalogSnapshot& snapshot,
                                                                     const CreateSequenceStmt& stmt,
                                                                     const std::string& nspname,
                                                                     const DdlContext& ctx) {
  const std::vector<std::string>& names = stmt.owned_by;
  if (names.empty() || (names.size() == 1 && names[0] == "none")) return std::nullopt;
  if (names.size() < 2) {
    Error e = MakeError("42601", "invalid OWNED BY option");
    e.hint = "Specify OWNED BY table.column or OWNED BY NONE.";
    return std::unexpected(std::move(e));
  }
  QualifiedName table_name;
  table_name.name = names[names.size() - 2];
  if (names.size() > 2) table_name.schema = names[names.size() - 3];
  auto ref = LookupRelation(snapshot, table_name, ctx);
  if (!ref) return std::unexpected(ref.error());
  if (!*ref) return std::unexpected(MakeError("42P01", fmt::format("relation \"{}\" does not exist", table_name.name)));
  if ((*ref)->kind != storage::RelationRef::Kind::kTable) {
    return std::unexpected(MakeError(
        "42809", fmt::format("sequence cannot be owned by relation \"{}\"", table_name.name)));
  }
  const storage::TableDesc& table = *snapshot.TableByOid((*ref)->oid);
  const storage::NamespaceDesc* nsp = snapshot.NamespaceByOid(table.relnamespace);
  if (nsp == nullptr || nsp->nspname != nspname) {
    return std::unexpected(MakeError("55000", "sequence must be in same schema as table it is linked to"));
  }
  const storage::ColumnDesc* column = table.FindColumn(names.back());
  if (column == nullptr) {
    return std::unexpected(MakeError(
        "42703", fmt::format("column \"{}\" of relation \"{}\" does not exist", names.back(), table.relname)));
  }
  return std::pair{table.oid, column->attnum};
}

// There is no pg_depend: a column DEFAULT that calls nextval('seq') is what depends on a
// sequence, found by its text. 2BP01 as PostgreSQL words it (without CASCADE).
std::optional<Error> DependentDefault(const storage::CatalogSnapshot& snapshot, Oid sequence) {
  const storage::SequenceDesc& seq = *snapshot.SequenceByOid(sequence);
  std::string call = fmt::format("nextval({}::regclass)", QuoteLiteral(seq.relname));
  for (const auto& [oid, table] : snapshot.tables()) {
    for (const storage::ColumnDesc& c : table.columns) {
      if (!c.default_expr || c.default_expr->find(call) == std::string::npos) continue;
      Error e = MakeError("2BP01", fmt::format("cannot drop sequence {} because other objects depend on it", seq.relname));
      e.detail = fmt::format("default value for column {} of table {} depends on sequence {}", c.attname, table.relname,
                             seq.relname);
      e.hint = "Use DROP ... CASCADE to drop the dependent objects too.";
      return e;
    }
  }
  return std::nullopt;
}

}  // namespace

std::expected<StatementOutput, Error> RunCreateSequence(const CreateSequenceStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "CREATE SEQUENCE"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  auto nspname = TargetNamespace(**snapshot, stmt.sequence, ctx);
  if (!nspname) return std::unexpected(nspname.error());
  StatementOutput out;
  out.tag = "CREATE SEQUENCE";
  const storage::NamespaceDesc* nsp = (*snapshot)->FindNamespace(*nspname);
  if (nsp == nullptr) {
    return std::unexpected(
        At("3F000", fmt::format("schema \"{}\" does not exist", *nspname), ctx, stmt.sequence.location));
  }
  // DefineSequence looks for an existing relation before reading the options.
  bool exists = (*snapshot)->FindRelation(nsp->oid, stmt.sequence.name).has_value();
  if (exists && stmt.if_not_exists) {
    Notice n;
    n.sqlstate = "42P07";
    n.message = fmt::format("relation \"{}\" already exists, skipping", stmt.sequence.name);
    out.notices.push_back(std::move(n));
    return out;
  }
  storage::CreateSequenceDef def;
  def.nspname = *nspname;
  def.relname = stmt.sequence.name;
  auto options = Options(stmt, ctx);
  if (!options) return std::unexpected(options.error());
  def.options = *options;
  if (exists) return std::unexpected(MakeError("42P07", fmt::format("relation \"{}\" already exists", def.relname)));
  auto owner = OwnedBy(**snapshot, stmt, def.nspname, ctx);
  if (!owner) return std::unexpected(owner.error());
  def.owned_by = *owner;
  if (auto r = ctx.catalog.CreateSequence(ctx.txn, def); !r) return std::unexpected(FromCatalog(r.error()));
  return out;
}

std::expected<StatementOutput, Error> RunDropSequence(const DropStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "DROP SEQUENCE"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  StatementOutput out;
  out.tag = "DROP SEQUENCE";
  auto sequences = ResolveDropTargets(**snapshot, stmt, storage::RelationRef::Kind::kSequence, out, ctx);
  if (!sequences) return std::unexpected(sequences.error());
  for (Oid oid : *sequences) {
    if (auto e = DependentDefault(**snapshot, oid)) return std::unexpected(std::move(*e));
    if (auto r = ctx.catalog.DropSequence(ctx.txn, oid); !r) return std::unexpected(FromCatalog(r.error()));
  }
  return out;
}

}  // namespace farmdb::sql
