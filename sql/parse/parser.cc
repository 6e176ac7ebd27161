// The single short-lived owner of libpg_query's result: parse, unpack, transform, free.
#include <pg_query.h>

#include <fmt/format.h>
#include <memory>

#include "sql/parse/ast.h"
#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

struct ParseResultDeleter {
  void operator()(PgQueryProtobufParseResult* r) const {
    pg_query_free_protobuf_parse_result(*r);
    delete r;
  }
};
template <typename T>
std::expected<StatementNode, Error> AsNode(std::expected<T, Error> stmt) {
  if (!stmt) return std::unexpected(stmt.error());
  return StatementNode(std::move(*stmt));
}

struct UnpackedDeleter {
  void operator()(PgQuery__ParseResult* r) const { pg_query__parse_result__free_unpacked(r, nullptr); }
};

}  // namespace

int CharPosition(std::string_view text, int location) {
  if (location < 0) return 0;
  int chars = 0;
  for (size_t i = 0; i < text.size() && i < static_cast<size_t>(location); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++chars;
  }
  return chars + 1;
}

std::expected<std::vector<Statement>, Error> Parse(std::string_view text) {
  auto source = std::make_shared<const std::string>(text);
  std::unique_ptr<PgQueryProtobufParseResult, ParseResultDeleter> result(
      new PgQueryProtobufParseResult(pg_query_parse_protobuf(source->c_str())));
  if (result->error != nullptr) {
    Error e = MakeError("42601", result->error->message);
    e.position = result->error->cursorpos;
    // libpg_query reports the grammar's message and cursor but not its errhint.
    if (e.message == "subquery in FROM must have an alias") e.hint = "For example, FROM (SELECT ...) [AS] foo.";
    return std::unexpected(e);
  }
  std::unique_ptr<PgQuery__ParseResult, UnpackedDeleter> tree(pg_query__parse_result__unpack(
      nullptr, result->parse_tree.len, reinterpret_cast<const uint8_t*>(result->parse_tree.data)));
  if (!tree) return std::unexpected(MakeError("XX000", "could not decode the parse tree"));
  Transformer transformer(*source);
  std::vector<Statement> statements;
  for (size_t i = 0; i < tree->n_stmts; ++i) {
    const PgQuery__RawStmt* raw = tree->stmts[i];
    if (raw->stmt == nullptr) continue;
    auto node = transformer.TransformStatement(*raw->stmt);
    if (node) {
      if (auto* explain = std::get_if<ExplainStmt>(&*node)) explain->statement->source = source;
    }
    statements.push_back(Statement{node ? std::move(*node) : StatementNode(UnsupportedStmt{node.error()}), source,
                                   transformer.TakeWarnings()});
  }
  return statements;
}

std::vector<std::string> StringList(PgQuery__Node** names, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    out.emplace_back(names[i]->node_case == PG_QUERY__NODE__NODE_STRING ? names[i]->string->sval : "");
  }
  return out;
}

std::string_view LastName(PgQuery__Node** names, size_t n) {
  if (n == 0 || names[n - 1]->node_case != PG_QUERY__NODE__NODE_STRING) return {};
  return names[n - 1]->string->sval;
}

Error Transformer::ErrorAt(std::string sqlstate, std::string message, int location) const {
  Error e = MakeError(std::move(sqlstate), std::move(message));
  e.position = CharPosition(source_, location);
  return e;
}

Error Transformer::NotSupported(std::string_view what, int location) const {
  return ErrorAt("0A000", fmt::format("{} is not supported yet", what), location);
}

std::expected<StatementNode, Error> Transformer::TransformStatement(const PgQuery__Node& node) {
  switch (node.node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
      return AsNode(TransformSelect(*node.select_stmt));
    case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT:
      return TransformSet(*node.variable_set_stmt);
    case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT:
      return TransformShow(*node.variable_show_stmt);
    case PG_QUERY__NODE__NODE_TRANSACTION_STMT:
      return TransformTransaction(*node.transaction_stmt);
    case PG_QUERY__NODE__NODE_COPY_STMT:
      return AsNode(TransformCopy(*node.copy_stmt));
    case PG_QUERY__NODE__NODE_CREATE_STMT:
      return AsNode(TransformCreateTable(*node.create_stmt));
    case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
      return AsNode(TransformAlterTable(*node.alter_table_stmt));
    case PG_QUERY__NODE__NODE_DROP_STMT:
      return AsNode(TransformDrop(*node.drop_stmt));
    case PG_QUERY__NODE__NODE_INDEX_STMT:
      return AsNode(TransformCreateIndex(*node.index_stmt));
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
      return AsNode(TransformTruncate(*node.truncate_stmt));
    case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT:
      return AsNode(TransformCreateSequence(*node.create_seq_stmt));
    case PG_QUERY__NODE__NODE_INSERT_STMT:
      return AsNode(TransformInsert(*node.insert_stmt));
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
      return AsNode(TransformUpdate(*node.update_stmt));
    case PG_QUERY__NODE__NODE_DELETE_STMT:
      return AsNode(TransformDelete(*node.delete_stmt));
    case PG_QUERY__NODE__NODE_EXPLAIN_STMT:
      return AsNode(TransformExplain(*node.explain_stmt));
    case PG_QUERY__NODE__NODE_CHECK_POINT_STMT:
      return CheckpointStmt{};
    case PG_QUERY__NODE__NODE_VACUUM_STMT: {
      VacuumStmt vacuum;
      vacuum.is_vacuum = node.vacuum_stmt->is_vacuumcmd;
      for (size_t i = 0; i < node.vacuum_stmt->n_rels; ++i) {
        const PgQuery__VacuumRelation* rel = node.vacuum_stmt->rels[i]->vacuum_relation;
        auto name = TransformRangeVar(*rel->relation);
        if (!name) return std::unexpected(name.error());
        vacuum.relations.push_back(std::move(*name));
      }
      return vacuum;
    }
    default:
      break;
  }
  // Name the statement as PostgreSQL's command tag would.
  static constexpr std::pair<PgQuery__Node__NodeCase, std::string_view> kNames[] = {
      {PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT, "CREATE TABLE AS"},
      {PG_QUERY__NODE__NODE_VIEW_STMT, "CREATE VIEW"},
      {PG_QUERY__NODE__NODE_CREATEDB_STMT, "CREATE DATABASE"},
      {PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT, "CREATE SCHEMA"},
      {PG_QUERY__NODE__NODE_CREATE_FUNCTION_STMT, "CREATE FUNCTION"},
      {PG_QUERY__NODE__NODE_CREATE_ROLE_STMT, "CREATE ROLE"},
      {PG_QUERY__NODE__NODE_GRANT_STMT, "GRANT"},
      {PG_QUERY__NODE__NODE_PREPARE_STMT, "PREPARE"},
      {PG_QUERY__NODE__NODE_EXECUTE_STMT, "EXECUTE"},
      {PG_QUERY__NODE__NODE_DEALLOCATE_STMT, "DEALLOCATE"},
      {PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT, "DECLARE CURSOR"},
      {PG_QUERY__NODE__NODE_FETCH_STMT, "FETCH"},
      {PG_QUERY__NODE__NODE_CLOSE_PORTAL_STMT, "CLOSE CURSOR"},
      {PG_QUERY__NODE__NODE_LOCK_STMT, "LOCK TABLE"},
      {PG_QUERY__NODE__NODE_LISTEN_STMT, "LISTEN"},
      {PG_QUERY__NODE__NODE_NOTIFY_STMT, "NOTIFY"},
      {PG_QUERY__NODE__NODE_UNLISTEN_STMT, "UNLISTEN"},
      {PG_QUERY__NODE__NODE_DISCARD_STMT, "DISCARD"},
      {PG_QUERY__NODE__NODE_DO_STMT, "DO"},
      {PG_QUERY__NODE__NODE_CALL_STMT, "CALL"},
  };
  for (const auto& [node_case, name] : kNames) {
    if (node.node_case == node_case) return std::unexpected(NotSupported(name));
  }
  return std::unexpected(NotSupported("this statement"));
}

}  // namespace farmdb::sql
