// CREATE [UNIQUE] INDEX and DROP INDEX through storage::Catalog, with PostgreSQL 15's checks
// in DefineIndex's order: the relation, the access method's abilities (hash: one column, not
// unique, no ordering options), the columns, then the name.
#include <fmt/format.h>

#include <algorithm>

#include "sql/exec/ddl_common.h"
#include "sql/exec/run_statement.h"

namespace farmdb::sql {

std::expected<StatementOutput, Error> RunCreateIndex(const CreateIndexStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "CREATE INDEX"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  auto ref = LookupRelation(**snapshot, stmt.table, ctx);
  if (!ref) return std::unexpected(ref.error());
  if (!*ref) {
    return std::unexpected(MakeError("42P01", fmt::format("relation \"{}\" does not exist", stmt.table.name)));
  }
  if ((*ref)->kind == storage::RelationRef::Kind::kIndex) {
    return std::unexpected(MakeError("42809", fmt::format("\"{}\" is an index", stmt.table.name)));
  }
  if ((*ref)->kind == storage::RelationRef::Kind::kSequence) {
    Error e = MakeError("42809", fmt::format("cannot create index on relation \"{}\"", stmt.table.name));
    e.detail = "This operation is not supported for sequences.";
    return std::unexpected(std::move(e));
  }
  const storage::TableDesc& table = *(*snapshot)->TableByOid((*ref)->oid);
  bool hash = stmt.method == "hash";
  if (hash && stmt.unique) {
    return std::unexpected(MakeError("0A000", "access method \"hash\" does not support unique indexes"));
  }
  if (hash && stmt.columns.size() > 1) {
    return std::unexpected(MakeError("0A000", "access method \"hash\" does not support multicolumn indexes"));
  }
  storage::IndexDef def;
  def.name = stmt.name;
  def.unique = stmt.unique;
  def.kind = hash ? storage::IndexKind::kHash : storage::IndexKind::kBTree;
  std::vector<int16_t> attnums;
  for (const IndexColumn& c : stmt.columns) {
    const storage::ColumnDesc* column = table.FindColumn(c.name);
    if (column == nullptr) return std::unexpected(MakeError("42703", fmt::format("column \"{}\" does not exist", c.name)));
    if (hash && c.descending) {
      return std::unexpected(MakeError("0A000", "access method \"hash\" does not support ASC/DESC options"));
    }
    if (hash && c.nulls != OrderItem::Nulls::kDefault) {
      return std::unexpected(MakeError("0A000", "access method \"hash\" does not support NULLS FIRST/LAST options"));
    }
    storage::IndexColumnDef key;
    key.column = c.name;
    key.descending = c.descending;
    if (c.nulls != OrderItem::Nulls::kDefault) key.nulls_first = c.nulls == OrderItem::Nulls::kFirst;
    def.columns.push_back(std::move(key));
    attnums.push_back(column->attnum);
  }
  StatementOutput out;
  out.tag = "CREATE INDEX";
  if (!def.name.empty() && (*snapshot)->FindRelation(table.relnamespace, def.name)) {
    if (!stmt.if_not_exists) return std::unexpected(MakeError("42P07", fmt::format("relation \"{}\" already exists", def.name)));
    Notice n;
    n.sqlstate = "42P07";
    n.message = fmt::format("relation \"{}\" already exists, skipping", def.name);
    out.notices.push_back(std::move(n));
    return out;
  }
  auto oid = ctx.catalog.CreateIndex(ctx.txn, table.oid, def);
  if (!oid) {
    Error e = FromCatalog(oid.error());
    if (e.sqlstate == "23505") e.detail = DuplicateKeyDetail(table, attnums, ctx);
    return std::unexpected(std::move(e));
  }
  return out;
}

std::expected<StatementOutput, Error> RunDropIndex(const DropStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "DROP INDEX"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  StatementOutput out;
  out.tag = "DROP INDEX";
  auto indexes = ResolveDropTargets(**snapshot, stmt, storage::RelationRef::Kind::kIndex, out, ctx);
  if (!indexes) return std::unexpected(indexes.error());
  // The catalog refuses an index that backs a constraint (2BP01 with PostgreSQL's HINT).
  for (Oid oid : *indexes) {
    if (auto r = ctx.catalog.DropIndex(ctx.txn, oid); !r) return std::unexpected(FromCatalog(r.error()));
  }
  return out;
}

}  // namespace farmdb::sql
