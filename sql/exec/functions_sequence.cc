// nextval, currval and setval over the statement's catalog (regclass arguments name the
// sequence) and the session's machine's SequenceCache. As in PostgreSQL, nextval and setval are
// not undone by a rollback, and currval is the session's last nextval of that sequence.
#include <fmt/format.h>

#include "sql/exec/builtins.h"
#include "sql/exec/scan_cursor.h"
#include "sql/exec/transaction_block.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

struct SequenceAccess {
  const storage::SequenceDesc* sequence;
  DatabaseAccess* db;
};

std::expected<SequenceAccess, Error> Resolve(const Value& relation, ExecContext& ctx) {
  if (ctx.db == nullptr || ctx.db->txn == nullptr || !ctx.db->catalog) {
    return std::unexpected(MakeError("XX000", "sequence function without the statement's catalog"));
  }
  auto oid = static_cast<Oid>(relation.AsInt());
  const storage::SequenceDesc* seq = ctx.db->catalog->SequenceByOid(oid);
  if (seq == nullptr) {
    const storage::TableDesc* table = ctx.db->catalog->TableByOid(oid);
    const storage::IndexDesc* index = ctx.db->catalog->IndexByOid(oid);
    std::string name = table != nullptr ? table->relname : index != nullptr ? index->relname : std::to_string(oid);
    return std::unexpected(MakeError("42809", fmt::format("\"{}\" is not a sequence", name)));
  }
  return SequenceAccess{seq, ctx.db};
}

std::expected<Value, Error> NextVal(std::span<const Value> args, const BoundExpr&, ExecContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "nextval()"); !w) return std::unexpected(w.error());
  auto seq = Resolve(args[0], ctx);
  if (!seq) return std::unexpected(seq.error());
  auto v = seq->db->caches.sequences->Next(seq->sequence->object, *seq->db->txn);
  if (!v) {
    if (v.error().code == storage::StorageError::Code::kSequenceLimit) {
      auto state = storage::Sequence::Read(*seq->db->txn, seq->sequence->object);
      if (!state) return std::unexpected(StorageFailure(state.error()));
      bool ascending = state->options.increment > 0;
      return std::unexpected(MakeError("2200H", fmt::format("nextval: reached {} value of sequence \"{}\" ({})",
                                                            ascending ? "maximum" : "minimum", seq->sequence->relname,
                                                            ascending ? state->options.max : state->options.min)));
    }
    return std::unexpected(StorageFailure(v.error()));
  }
  if (seq->db->sequence_values != nullptr) (*seq->db->sequence_values)[seq->sequence->oid] = *v;
  return Value::Int(kInt8, *v);
}

std::expected<Value, Error> CurrVal(std::span<const Value> args, const BoundExpr&, ExecContext& ctx) {
  auto seq = Resolve(args[0], ctx);
  if (!seq) return std::unexpected(seq.error());
  const auto* values = seq->db->sequence_values;
  auto it = values != nullptr ? values->find(seq->sequence->oid) : decltype(values->end()){};
  if (values == nullptr || it == values->end()) {
    return std::unexpected(
        MakeError("55000", fmt::format("currval of sequence \"{}\" is not yet defined in this session", seq->sequence->relname)));
  }
  return Value::Int(kInt8, it->second);
}

std::expected<Value, Error> SetVal(std::span<const Value> args, const BoundExpr&, ExecContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "setval()"); !w) return std::unexpected(w.error());
  auto seq = Resolve(args[0], ctx);
  if (!seq) return std::unexpected(seq.error());
  int64_t value = args[1].AsInt();
  bool is_called = args.size() < 3 || args[2].AsBool();
  auto state = storage::Sequence::Read(*seq->db->txn, seq->sequence->object);
  if (!state) return std::unexpected(StorageFailure(state.error()));
  const storage::SequenceOptions& o = state->options;
  if (value < o.min || value > o.max) {
    return std::unexpected(MakeError("22003", fmt::format("setval: value {} is out of bounds for sequence \"{}\" ({}..{})", value,
                                                          seq->sequence->relname, o.min, o.max)));
  }
  if (auto r = seq->db->caches.sequences->Set(seq->sequence->object, value, is_called); !r) {
    return std::unexpected(StorageFailure(r.error()));
  }
  if (is_called && seq->db->sequence_values != nullptr) (*seq->db->sequence_values)[seq->sequence->oid] = value;
  return Value::Int(kInt8, value);
}

}  // namespace

std::span<const Builtin> SequenceFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"nextval", {kRegclass}, kInt8, NextVal},
      {"currval", {kRegclass}, kInt8, CurrVal},
      {"setval", {kRegclass, kInt8}, kInt8, SetVal},
      {"setval", {kRegclass, kInt8, kBool}, kInt8, SetVal},
  };
  return kFunctions;
}

}  // namespace farmdb::sql
