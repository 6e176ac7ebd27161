// Relation sizes and pg_size_pretty. farmdb keeps relations in FaRM objects, not in files of
// 8 kB pages, so a size here is the bytes of data a relation holds, read in the statement's
// transaction: a table's encoded rows, an index's entries (encoded key plus the 8-byte row
// address). There is no free space map, visibility map or TOAST table: pg_table_size is the
// table's rows, and a table without rows has size 0 (as a PostgreSQL table with no pages).
// Sequences and the system views report 0; an OID that names no relation gives NULL.
#include <fmt/format.h>

#include "sql/exec/builtins.h"
#include "sql/exec/scan_cursor.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

// The statement's catalog and transaction, which the binder loaded for these calls.
std::expected<DatabaseAccess*, Error> Access(ExecContext& ctx) {
  if (ctx.db == nullptr || ctx.db->txn == nullptr || !ctx.db->catalog) {
    return std::unexpected(MakeError("0A000", "relation size functions are not available in this statement yet"));
  }
  return ctx.db;
}

// Bytes of the table's rows, or of the entries of its index at storage position `index`.
std::expected<int64_t, Error> ScanBytes(DatabaseAccess& db, const storage::TableDesc& table, std::optional<uint32_t> index) {
  const auto handle = db.TableFor(table.storage);
  const storage::Table& t = *handle;
  auto rows = t.Scan(*db.txn, storage::IndexScan{});
  if (!rows) return std::unexpected(StorageFailure(rows.error()));
  const storage::TableDescriptor& d = *table.storage;
  int64_t bytes = 0;
  while (true) {
    auto more = rows->Next();
    if (!more) return std::unexpected(StorageFailure(more.error()));
    if (!*more) return bytes;
    const storage::StoredRow& row = rows->row();
    if (!index) {
      bytes += static_cast<int64_t>(row.view().bytes().size());
      continue;
    }
    const storage::IndexSpec& spec = *index == 0 ? d.primary.spec : d.secondary[*index - 1].spec;
    std::vector<Value> key;
    for (const storage::IndexColumn& c : spec.columns) key.push_back(t.Column(row, c.column));
    bytes += static_cast<int64_t>(t.IndexKey(*index, key).size() + sizeof(uint64_t));
  }
}

// The storage position of index `oid` of `table`.
std::optional<uint32_t> IndexPosition(const storage::TableDesc& table, Oid oid) {
  for (uint32_t pos = 0; pos <= table.storage->secondary.size(); ++pos) {
    const storage::IndexDesc* index = table.IndexAt(pos);
    if (index != nullptr && index->oid == oid) return pos;
  }
  return std::nullopt;
}

enum class Part { kRelation, kTable, kIndexes, kTotal };

// The size of `part` of relation `oid`; nullopt when no relation has that OID.
std::expected<std::optional<int64_t>, Error> RelationBytes(ExecContext& ctx, Oid oid, Part part) {
  auto db = Access(ctx);
  if (!db) return std::unexpected(db.error());
  const storage::CatalogSnapshot& catalog = *(*db)->catalog;
  if (const storage::TableDesc* table = catalog.TableByOid(oid)) {
    int64_t total = 0;
    if (part != Part::kIndexes) {
      auto rows = ScanBytes(**db, *table, std::nullopt);
      if (!rows) return std::unexpected(rows.error());
      total += *rows;
    }
    if (part == Part::kIndexes || part == Part::kTotal) {
      for (const storage::IndexDesc& index : table->indexes) {
        auto entries = ScanBytes(**db, *table, IndexPosition(*table, index.oid));
        if (!entries) return std::unexpected(entries.error());
        total += *entries;
      }
    }
    return total;
  }
  if (const storage::IndexDesc* index = catalog.IndexByOid(oid)) {
    if (part == Part::kIndexes) return int64_t{0};
    const storage::TableDesc* table = catalog.TableByOid(index->indrelid);
    if (table == nullptr) return std::nullopt;
    auto entries = ScanBytes(**db, *table, IndexPosition(*table, oid));
    if (!entries) return std::unexpected(entries.error());
    return *entries;
  }
  if (catalog.SequenceByOid(oid) != nullptr || SystemViewByOid(oid) != nullptr) return int64_t{0};
  return std::nullopt;
}

template <Part kPart>
Result Size(Args a, const BoundExpr&, ExecContext& ctx) {
  auto bytes = RelationBytes(ctx, static_cast<Oid>(a[0].AsInt()), kPart);
  if (!bytes) return std::unexpected(bytes.error());
  return *bytes ? Value::Int(kInt8, **bytes) : Value::Null(kInt8);
}

// pg_relation_size(relation, fork): the main fork holds the data; farmdb has no others.
Result ForkSize(Args a, const BoundExpr& e, ExecContext& ctx) {
  const std::string& fork = a[1].AsString();
  if (fork != "main" && fork != "fsm" && fork != "vm" && fork != "init") {
    Error err = MakeError("22023", "invalid fork name");
    err.hint = "Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\".";
    return std::unexpected(err);
  }
  auto main = Size<Part::kRelation>(a, e, ctx);
  if (!main || fork == "main" || main->IsNull()) return main;
  return Value::Int(kInt8, 0);
}

// pg_size_pretty(bigint) of PostgreSQL 15: bytes below 10 kB, then kB, MB, GB, TB, PB, each
// used below 20 * 1024 - 1 of itself, rounded half away from zero.
Result SizePretty(Args a, const BoundExpr&, ExecContext&) {
  struct Unit {
    std::string_view name;
    int64_t limit;
    bool round;
    int bits;
  };
  static constexpr Unit kUnits[] = {{"bytes", 10 * 1024, false, 0}, {"kB", 20 * 1024 - 1, true, 10},
                                    {"MB", 20 * 1024 - 1, true, 20},  {"GB", 20 * 1024 - 1, true, 30},
                                    {"TB", 20 * 1024 - 1, true, 40},  {"PB", 20 * 1024 - 1, true, 50}};
  int64_t size = a[0].AsInt();
  auto half_rounded = [](int64_t x) { return (x + (x < 0 ? -1 : 1)) / 2; };
  for (size_t i = 0; i < std::size(kUnits); ++i) {
    const Unit& unit = kUnits[i];
    bool last = i + 1 == std::size(kUnits);
    uint64_t magnitude = size < 0 ? -static_cast<uint64_t>(size) : static_cast<uint64_t>(size);
    if (last || magnitude < static_cast<uint64_t>(unit.limit)) {
      if (unit.round) size = half_rounded(size);
      return Value::Str(kText, fmt::format("{} {}", size, unit.name));
    }
    const Unit& next = kUnits[i + 1];
    int bits = next.bits - unit.bits - (next.round ? 1 : 0) + (unit.round ? 1 : 0);
    size /= int64_t{1} << bits;
  }
  return Value::Null(kText);
}

}  // namespace

std::span<const Builtin> SizeFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"pg_relation_size", {kRegclass}, kInt8, Size<Part::kRelation>},
      {"pg_relation_size", {kRegclass, kText}, kInt8, ForkSize},
      {"pg_table_size", {kRegclass}, kInt8, Size<Part::kTable>},
      {"pg_indexes_size", {kRegclass}, kInt8, Size<Part::kIndexes>},
      {"pg_total_relation_size", {kRegclass}, kInt8, Size<Part::kTotal>},
      {"pg_size_pretty", {kInt8}, kText, SizePretty},
  };
  return kFunctions;
}

}  // namespace farmdb::sql
