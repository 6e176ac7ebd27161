// The Engine and Session of session.h: statement flow through parse -> bind -> exec, the
// transaction-block rules of the simple and extended protocols, portals and wire encoding.
#include "sql/session.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "cluster/fibers.h"
#include "sql/bind/binder.h"
#include "sql/exec/builtins.h"
#include "sql/exec/not_runnable.h"
#include "sql/exec/run_statement.h"
#include "sql/exec/transaction_block.h"
#include "sql/node.h"
#include "sql/parse/ast.h"
#include "sql/settings/settings.h"
#include "sql/types/type_io.h"
#include "txn/engine.h"

namespace farmdb::sql {


namespace {

constexpr int kMaxParams = 65535;
// Server-side retries of a statement outside a block that hit a retryable abort (DESIGN.md §2),
// with exponential backoff from kRetryBackoff up to kMaxRetryBackoff.
constexpr int kMaxRetries = 10;
constexpr std::chrono::microseconds kRetryBackoff{200};
constexpr std::chrono::microseconds kMaxRetryBackoff{50000};

// DDL run in the transaction's Txn and send nothing before they succeed, so outside a block a
// retryable abort can be retried by the server. SELECT is retryable too: its rows are sent
// after it ran.
bool IsDdl(const StatementNode& node) {
  return std::holds_alternative<CreateTableStmt>(node) || std::holds_alternative<DropStmt>(node) ||
         std::holds_alternative<CreateIndexStmt>(node) || std::holds_alternative<CreateSequenceStmt>(node) ||
         std::holds_alternative<AlterTableStmt>(node) || std::holds_alternative<TruncateStmt>(node);
}
bool IsDml(const StatementNode& node) {
  return std::holds_alternative<InsertStmt>(node) || std::holds_alternative<UpdateStmt>(node) ||
         std::holds_alternative<DeleteStmt>(node);
}
bool RetryableOutsideBlock(const StatementNode& node) {
  return IsDdl(node) || IsDml(node) || std::holds_alternative<SelectStmt>(node);
}

// What analysis made of a statement under one catalog version. A prepared statement keeps its
// analysis and replaces it when the catalog changed (the plan cache, keyed by catalog version).
struct Analysis {
  std::shared_ptr<const QueryCatalog> catalog;  // what names resolved against; null: none read
  std::optional<BoundQuery> query;              // SELECT, or the query of COPY (query) TO
  std::optional<Binder::BoundDml> dml;          // INSERT, UPDATE, DELETE
  std::optional<InsertPlan> copy_from;          // COPY table FROM STDIN
  std::shared_ptr<const Analysis> explained;    // EXPLAIN's statement
  // "SELECT FOR UPDATE" when the query locks rows (Binder::RowLockCommand): refused in READ ONLY.
  std::optional<std::string> lock_command;
  // The result columns (SELECT's, RETURNING's, or EXPLAIN's one text column).
  const std::vector<OutputColumn>* Columns() const {
    static const std::vector<OutputColumn> kExplain = {OutputColumn{"QUERY PLAN", TypeId::kText}};
    return explained ? &kExplain : query ? &query->columns : dml ? &dml->returning : nullptr;
  }
};

// EXPLAIN's lines for an analysed statement.
std::vector<std::string> ExplainLines(const Analysis& analysis) {
  std::vector<std::string> lines;
  if (analysis.query) {
    analysis.query->plan->Explain(lines, 0);
  } else if (analysis.dml) {
    std::visit([&](const auto& plan) {
      using T = std::decay_t<decltype(plan)>;
      std::string_view verb = std::is_same_v<T, InsertPlan> ? "Insert" : std::is_same_v<T, UpdatePlan> ? "Update" : "Delete";
      lines.push_back(fmt::format("{} on {}", verb, plan.table->relname));
      if constexpr (std::is_same_v<T, InsertPlan>) plan.source->Explain(lines, 1);
      else plan.scan->Explain(lines, 1);
    }, analysis.dml->plan);
  }
  return lines;
}

class PreparedImpl final : public PreparedStatement {
 public:
  std::span<const Oid> ParameterTypes() const override { return param_oids; }
  std::span<const Column> ResultColumns() const override { return columns; }

  std::shared_ptr<const Statement> statement;  // null: the empty query
  std::vector<TypeId> param_types;
  std::vector<Oid> param_oids;
  std::vector<Column> columns;
  // Replaced on the session's thread when the catalog version moved (SessionImpl::Revalidate).
  mutable std::shared_ptr<const Analysis> analysis;
};

class PortalImpl final : public Portal {
 public:
  std::span<const Column> ResultColumns() const override {
    if (!formatted_columns.empty()) return formatted_columns;
    return prepared->columns;
  }

  std::shared_ptr<const PreparedImpl> prepared;
  std::shared_ptr<const Analysis> analysis;  // the prepared statement's, when the portal first ran
  std::vector<Value> params;
  // The prepared statement's columns with Bind's result formats, when some format is not text;
  // empty otherwise (the columns are the prepared statement's, all text).
  std::vector<Column> formatted_columns;
  std::optional<StatementOutput> output;  // set by the first Execute
  size_t next_row = 0;

  // As new, keeping the vectors' storage.
  void Clear() {
    prepared.reset();
    analysis.reset();
    params.clear();
    formatted_columns.clear();
    output.reset();
    next_row = 0;
  }
};

bool IsTransactionExit(const PreparedImpl& p) {
  if (!p.statement) return false;
  const auto* txn = std::get_if<TransactionStmt>(&p.statement->node);
  return txn != nullptr && (txn->kind == TransactionStmt::Kind::kCommit || txn->kind == TransactionStmt::Kind::kRollback);
}

Error AbortedBlock() {
  return MakeError("25P02", "current transaction is aborted, commands ignored until end of transaction block");
}

// Bind's format convention: none = all text, one = all, else one per item (n of them).
bool FormatsFit(std::span<const Format> formats, size_t n) { return formats.size() <= 1 || formats.size() == n; }
// Item i's format. REQUIRES: FormatsFit.
Format FormatOf(std::span<const Format> formats, size_t i) {
  if (formats.empty()) return Format::kText;
  return formats[formats.size() == 1 ? 0 : i];
}

class SessionImpl final : public Session {
 public:
  // `worker` runs on `machine` of `node` (both null for an engine without a Node).
  SessionImpl(Settings settings, const SessionOptions& options, std::shared_ptr<Node> node, int machine,
              std::unique_ptr<txn::Worker> worker, std::vector<std::string> databases)
      : node_(std::move(node)),
        machine_(machine),
        worker_(std::move(worker)),
        settings_(std::move(settings)),
        txn_(settings_, worker_.get(), node_ ? &node_->Snapshots() : nullptr),
        cancel_(options.cancel),
        reported_(settings_.Reported()),
        user_(options.user),
        database_(options.database),
        databases_(std::move(databases)) {}
  ~SessionImpl() override {
    if (worker_) worker_->FlushTruncations();
  }

  std::vector<std::pair<std::string, std::string>> ReportedSettings() const override { return settings_.Reported(); }
  TxnStatus Status() const override { return txn_.Status(); }
  std::expected<void, Error> Sync(ResultSink& sink) override {
    auto ended = txn_.EndImplicit();
    ReportChanges(sink);  // a failed commit undoes the transaction's SETs
    return ended;
  }
  void MessageFailed() override { txn_.StatementFailed(); }

  std::expected<void, Error> SimpleQuery(std::string_view text, ResultSink& sink) override {
    auto statements = Parse(text);
    if (!statements) return Fail(statements.error(), sink);
    if (statements->empty()) {
      sink.EmptyQuery();
      return {};
    }
    // Several statements are one implicit transaction (TransactionBlock's header comment).
    txn_.StartMessage(statements->size() > 1 ? TransactionBlock::ImplicitScope::kMessage
                                             : TransactionBlock::ImplicitScope::kStatement);
    for (Statement& statement : *statements) {
      // Parse analysis warns before the statement runs (or fails). The extended protocol's
      // Prepare has no sink, so its analysis warnings are not sent.
      for (const Notice& warning : statement.warnings) sink.Notice(warning);
      auto prepared = Analyze(std::move(statement), {}, /*max_params=*/0);
      if (!prepared) return Fail(prepared.error(), sink);
      PortalImpl portal;
      portal.prepared = *prepared;
      auto result = Run(portal, 0, sink, /*describe=*/true);
      if (!result) return std::unexpected(result.error());
      sink.CommandComplete(result->command_tag);
    }
    if (auto ended = txn_.EndImplicit(); !ended) return Fail(ended.error(), sink);
    ReportChanges(sink);
    return {};
  }

  std::expected<std::shared_ptr<const PreparedStatement>, Error> Prepare(std::string_view text,
                                                                         std::span<const Oid> param_types) override {
    auto statements = Parse(text);
    if (!statements) return FailQuiet(statements.error());
    if (statements->size() > 1) {
      return FailQuiet(MakeError("42601", "cannot insert multiple commands into a prepared statement"));
    }
    if (statements->empty()) {
      auto empty = std::make_shared<PreparedImpl>();
      empty->param_oids.assign(param_types.begin(), param_types.end());
      return empty;
    }
    auto prepared = Analyze(std::move(statements->front()), param_types, kMaxParams);
    if (!prepared) return FailQuiet(prepared.error());
    return *prepared;
  }

  std::expected<std::unique_ptr<Portal>, Error> Bind(std::shared_ptr<const PreparedStatement> statement,
                                                     const BindParameters& params,
                                                     std::unique_ptr<Portal> replaced) override;

  std::expected<ExecuteResult, Error> Execute(Portal& portal, int64_t max_rows, bool sync_follows,
                                              ResultSink& sink) override {
    // TransactionBlock's header: the first Execute of an implicit transaction with its Sync
    // already here is the whole transaction; otherwise the transaction lasts until Sync.
    bool whole = sync_follows && !txn_.StatementCompleted();
    txn_.StartMessage(whole ? TransactionBlock::ImplicitScope::kStatement : TransactionBlock::ImplicitScope::kSync);
    // Changed settings are reported at Sync, just before ReadyForQuery, as PostgreSQL does.
    return Run(static_cast<PortalImpl&>(portal), max_rows, sink, /*describe=*/false);
  }

 private:
  std::expected<std::shared_ptr<PreparedImpl>, Error> Analyze(Statement statement, std::span<const Oid> param_oids,
                                                              int max_params);
  // Binds `statement` (types of $n inferred into `param_types`); reads the catalog only if a
  // name needs it.
  std::expected<std::shared_ptr<const Analysis>, Error> Bind(const Statement& statement, std::vector<TypeId>& param_types,
                                                              int max_params);
  // The prepared statement's analysis, re-bound if the catalog changed since (a statement whose
  // result columns would change fails with 0A000, as PostgreSQL's plan cache does).
  std::expected<std::shared_ptr<const Analysis>, Error> Revalidate(const PreparedImpl& p);
  // The transaction's Txn and the statement's catalog for the executors.
  std::expected<void, Error> Attach(const Analysis& analysis, ExecContext& ctx);
  std::expected<ExecuteResult, Error> Run(PortalImpl& portal, int64_t max_rows, ResultSink& sink, bool describe);
  std::expected<StatementOutput, Error> RunStatement(const PreparedImpl& prepared, PortalImpl& portal, ExecContext& ctx,
                                                     ResultSink& sink);

  // A failed statement: the transaction block records it, changed reported settings go out
  // (the error ends the message, so this is where PostgreSQL's ReadyForQuery would follow).
  std::unexpected<Error> Fail(Error e, ResultSink& sink) {
    txn_.StatementFailed();
    ReportChanges(sink);
    return std::unexpected(std::move(e));
  }
  std::unexpected<Error> FailQuiet(Error e) {
    txn_.StatementFailed();
    return std::unexpected(std::move(e));
  }

  void ReportChanges(ResultSink& sink) {
    if (settings_.Generation() == reported_generation_) return;
    reported_generation_ = settings_.Generation();
    auto now = settings_.Reported();
    for (size_t i = 0; i < now.size(); ++i) {
      if (now[i].second != reported_[i].second) sink.ParameterStatus(now[i].first, now[i].second);
    }
    reported_ = std::move(now);
  }

  // Declared first so they are destroyed last: the Txn (in txn_) before its worker, the worker
  // before the node's engines.
  std::shared_ptr<Node> node_;
  int machine_ = 0;
  std::unique_ptr<txn::Worker> worker_;
  Settings settings_;
  TransactionBlock txn_;
  int64_t transaction_start_ = 0;  // now() of the open transaction (ExecContext)
  CancelFlag* cancel_;
  std::vector<std::pair<std::string, std::string>> reported_;  // as last sent to the client
  uint64_t reported_generation_ = 0;  // settings_.Generation() when reported_ was taken
  std::string user_, database_;
  std::vector<std::string> databases_;  // every database the engine serves (pg_database)
  DatabaseAccess db_;  // what the running statement's executors read (ExecContext::db)
  std::unordered_map<Oid, int64_t> sequence_values_;  // currval: the last nextval per sequence
  // The DataRow being sent (Run): members so that rows and statements reuse their capacity.
  std::vector<std::string> encoded_row_;
  std::vector<WireValue> wire_row_;
};

std::expected<std::shared_ptr<PreparedImpl>, Error> SessionImpl::Analyze(Statement statement,
                                                                         std::span<const Oid> param_oids,
                                                                         int max_params) {
  auto p = std::make_shared<PreparedImpl>();
  for (Oid oid : param_oids) {
    std::optional<TypeId> type = oid == 0 ? TypeId::kUnknown : TypeFromOid(oid);
    if (!type) return std::unexpected(MakeError("0A000", fmt::format("parameters of type OID {} are not supported yet", oid)));
    p->param_types.push_back(*type);
  }
  if (auto refused = NotRunnable(statement)) return std::unexpected(std::move(*refused));
  if (txn_.state() == TransactionBlock::State::kFailed) {
    const auto* t = std::get_if<TransactionStmt>(&statement.node);
    if (t == nullptr || (t->kind != TransactionStmt::Kind::kCommit && t->kind != TransactionStmt::Kind::kRollback)) {
      return std::unexpected(AbortedBlock());
    }
  }
  auto analysis = Bind(statement, p->param_types, max_params);
  if (!analysis) return std::unexpected(analysis.error());
  // Parameters no context typed are text, as for unknown-type literals.
  for (TypeId& t : p->param_types) {
    if (t == TypeId::kUnknown) t = TypeId::kText;
    p->param_oids.push_back(Info(t).oid);
  }
  if (const std::vector<OutputColumn>* columns = (*analysis)->Columns(); columns != nullptr && !std::holds_alternative<CopyStmt>(statement.node)) {
    for (const OutputColumn& c : *columns) {
      const TypeInfo& info = Info(c.type);
      p->columns.push_back(Column{c.name, info.oid, info.typlen, c.typmod, c.table_oid, c.attnum});
    }
  } else if (const auto* show = std::get_if<ShowStmt>(&statement.node)) {
    for (std::string& name : ShowColumnNames(*show, settings_)) {
      p->columns.push_back(Column{std::move(name), Info(TypeId::kText).oid, Info(TypeId::kText).typlen});
    }
  }
  p->analysis = std::move(*analysis);
  p->statement = std::make_shared<const Statement>(std::move(statement));
  return p;
}

std::expected<std::shared_ptr<const Analysis>, Error> SessionImpl::Bind(const Statement& statement,
                                                                         std::vector<TypeId>& param_types, int max_params) {
  auto analysis = std::make_shared<Analysis>();
  TextOptions text_options = settings_.Text();
  Binder binder(*statement.source, param_types, max_params, text_options);
  if (node_) {
    binder.set_catalog_loader([this, &analysis]() -> std::expected<const QueryCatalog*, Error> {
      txn_.StartStatement();
      auto t = txn_.Txn();
      if (!t) return std::unexpected(t.error());
      auto snapshot = node_->Catalog(machine_).Snapshot(**t);
      if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
      analysis->catalog = std::make_shared<const QueryCatalog>(QueryCatalog{*snapshot, SearchPath(settings_)});
      return analysis->catalog.get();
    });
  }
  const SelectStmt* select = std::get_if<SelectStmt>(&statement.node);
  if (const auto* copy = std::get_if<CopyStmt>(&statement.node)) {
    select = copy->query.get();
    if (select == nullptr && copy->is_from) {
      auto plan = binder.BindCopyFrom(*copy);
      if (!plan) return std::unexpected(plan.error());
      analysis->copy_from = std::move(*plan);
    } else if (select == nullptr) {
      auto query = binder.BindCopyTo(*copy);
      if (!query) return std::unexpected(query.error());
      analysis->query = std::move(*query);
    }
  }
  if (select != nullptr) {
    auto bound = binder.BindQuery(*select);
    if (!bound) return std::unexpected(bound.error());
    analysis->query = std::move(*bound);
    analysis->lock_command = binder.RowLockCommand();
  }
  if (const auto* vacuum = std::get_if<VacuumStmt>(&statement.node)) {
    for (const QualifiedName& name : vacuum->relations) {
      if (auto table = binder.ResolveTable(name); !table) {
        Error e = table.error();
        e.position = 0;  // VACUUM's errors carry no position
        return std::unexpected(e);
      }
    }
    return analysis;
  }
  if (const auto* explain = std::get_if<ExplainStmt>(&statement.node)) {
    auto inner = Bind(*explain->statement, param_types, max_params);
    if (!inner) return inner;
    analysis->catalog = (*inner)->catalog;
    analysis->explained = std::move(*inner);
    return analysis;
  }
  std::expected<Binder::BoundDml, Error> dml = std::unexpected(Error{});
  if (const auto* insert = std::get_if<InsertStmt>(&statement.node)) dml = binder.BindInsert(*insert);
  else if (const auto* update = std::get_if<UpdateStmt>(&statement.node)) dml = binder.BindUpdate(*update);
  else if (const auto* del = std::get_if<DeleteStmt>(&statement.node)) dml = binder.BindDelete(*del);
  else return analysis;
  if (!dml) return std::unexpected(dml.error());
  analysis->dml = std::move(*dml);
  return analysis;
}

std::expected<std::shared_ptr<const Analysis>, Error> SessionImpl::Revalidate(const PreparedImpl& p) {
  if (!p.analysis->catalog) return p.analysis;
  auto t = txn_.Txn();
  if (!t) return std::unexpected(t.error());
  auto version = node_->Catalog(machine_).Version(**t);
  if (!version) return std::unexpected(FromCatalog(version.error()));
  if (*version == p.analysis->catalog->snapshot->version()) return p.analysis;
  std::vector<TypeId> param_types = p.param_types;
  auto fresh = Bind(*p.statement, param_types, static_cast<int>(p.param_types.size()));
  if (!fresh) return fresh;
  bool same = param_types == p.param_types;
  if (const std::vector<OutputColumn>* fresh_columns = (*fresh)->Columns()) {
    const auto& columns = *fresh_columns;
    same = same && columns.size() == p.columns.size();
    for (size_t i = 0; same && i < columns.size(); ++i) same = Info(columns[i].type).oid == p.columns[i].type_oid;
  }
  if (!same) return std::unexpected(MakeError("0A000", "cached plan must not change result type"));
  p.analysis = std::move(*fresh);
  return p.analysis;
}

std::expected<void, Error> SessionImpl::Attach(const Analysis& analysis, ExecContext& ctx) {
  auto t = txn_.Txn();
  if (!t) return std::unexpected(t.error());
  db_.txn = *t;
  db_.catalog = analysis.catalog ? analysis.catalog->snapshot : nullptr;
  db_.catalog_root = node_->Catalog(machine_).root();
  db_.caches = node_->Caches(machine_);
  db_.database = database_;
  db_.databases = databases_;
  db_.user = user_;
  db_.cluster = node_.get();
  db_.search_path = analysis.catalog ? std::span<const std::string>(analysis.catalog->search_path) : std::span<const std::string>();
  db_.sequence_values = &sequence_values_;
  ctx.db = &db_;
  return {};
}

std::expected<std::unique_ptr<Portal>, Error> SessionImpl::Bind(std::shared_ptr<const PreparedStatement> statement,
                                                                const BindParameters& params,
                                                                std::unique_ptr<Portal> replaced) {
  auto prepared = std::static_pointer_cast<const PreparedImpl>(std::move(statement));
  if (txn_.state() == TransactionBlock::State::kFailed && !IsTransactionExit(*prepared)) return std::unexpected(AbortedBlock());
  size_t n = prepared->param_types.size();
  if (params.values.size() != n) {
    return FailQuiet(MakeError("08P01", fmt::format("bind message supplies {} parameters, but prepared statement \"{}\" requires {}",
                                                    params.values.size(), params.statement_name, n)));
  }
  if (!FormatsFit(params.formats, n)) {
    return FailQuiet(MakeError("08P01", fmt::format("bind message has {} parameter formats but {} parameters",
                                                    params.formats.size(), n)));
  }
  // Every statement of the extended protocol binds a portal, most of them the unnamed one that
  // replaces the last: its object and parameter vector are reused rather than reallocated.
  std::unique_ptr<PortalImpl> portal(static_cast<PortalImpl*>(replaced.release()));
  if (portal) {
    portal->Clear();
  } else {
    portal = std::make_unique<PortalImpl>();
  }
  portal->prepared = std::move(prepared);
  const PreparedImpl& p = *portal->prepared;
  TextOptions text_options = settings_.Text();
  portal->params.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TypeId type = p.param_types[i];
    if (!params.values[i]) {
      portal->params.push_back(Value::Null(type));
      continue;
    }
    auto v = FormatOf(params.formats, i) == Format::kBinary ? DecodeBinary(type, *params.values[i])
                                                            : ParseText(type, *params.values[i], text_options);
    if (!v) {
      Error e = v.error();
      // Leftover bytes after a typreceive are the only failure Bind words itself
      // (exec_bind_message); running short or invalid contents keep the receive's error.
      if (e.message == kIncorrectBinaryFormat) e.message = fmt::format("{} in bind parameter {}", e.message, i + 1);
      return FailQuiet(e);
    }
    portal->params.push_back(std::move(*v));
  }
  const size_t columns = p.columns.size();
  if (!FormatsFit(params.result_formats, columns)) {
    return FailQuiet(MakeError("08P01", fmt::format("bind message has {} result formats but query has {} columns",
                                                    params.result_formats.size(), columns)));
  }
  if (columns > 0 && std::ranges::any_of(params.result_formats, [](Format f) { return f != Format::kText; })) {
    portal->formatted_columns = p.columns;
    for (size_t i = 0; i < columns; ++i) portal->formatted_columns[i].format = FormatOf(params.result_formats, i);
  }
  return portal;
}

std::expected<StatementOutput, Error> SessionImpl::RunStatement(const PreparedImpl& p, PortalImpl& portal, ExecContext& ctx,
                                                                ResultSink& sink) {
  const StatementNode& node = p.statement->node;
  bool is_select = std::holds_alternative<SelectStmt>(node);
  const auto* copy = std::get_if<CopyStmt>(&node);
  if (is_select || copy != nullptr) {
    txn_.NoteQuery();
    auto analysis = Revalidate(p);
    if (!analysis) return std::unexpected(analysis.error());
    portal.analysis = *analysis;
    if (const auto& command = portal.analysis->lock_command) {
      if (auto writable = txn_.RequireWritable(*command); !writable) return std::unexpected(writable.error());
    }
    if (portal.analysis->catalog) {
      if (auto attached = Attach(*portal.analysis, ctx); !attached) return std::unexpected(attached.error());
    }
    if (is_select) return RunSelect(*portal.analysis->query, ctx);
    if (portal.analysis->copy_from) {
      if (auto writable = txn_.RequireWritable("COPY FROM"); !writable) return std::unexpected(writable.error());
      return RunCopyFrom(*copy, *portal.analysis->copy_from, ctx, sink);
    }
    return RunCopy(*copy, *portal.analysis->query, ctx, sink);
  }
  if (std::holds_alternative<CheckpointStmt>(node)) {
    if (settings_.Get("is_superuser", false).value_or(std::nullopt) != "on") {
      return std::unexpected(MakeError("42501", "must be superuser or have privileges of pg_checkpoint to do CHECKPOINT"));
    }
    if (node_) {
      if (auto done = node_->Checkpoint(); !done) {
        Error e = MakeError(done.error().no_space ? "53100" : "58030", "could not write a checkpoint: " + done.error().message);
        if (done.error().no_space) e.hint = "Check free disk space.";
        return std::unexpected(std::move(e));
      }
    }
    StatementOutput out;
    out.tag = "CHECKPOINT";
    return out;
  }
  if (const auto* vacuum = std::get_if<VacuumStmt>(&node)) {
    // Nothing to reclaim or measure (ast.h); only the transaction-block rule is PostgreSQL's.
    if (vacuum->is_vacuum && txn_.InExplicitBlock()) {
      return std::unexpected(MakeError("25001", "VACUUM cannot run inside a transaction block"));
    }
    StatementOutput out;
    out.tag = vacuum->is_vacuum ? "VACUUM" : "ANALYZE";
    return out;
  }
  if (std::holds_alternative<ExplainStmt>(node)) {
    auto analysis = Revalidate(p);
    if (!analysis) return std::unexpected(analysis.error());
    portal.analysis = *analysis;
    StatementOutput out;
    out.tag = "EXPLAIN";
    for (std::string& line : ExplainLines(*portal.analysis->explained)) out.rows.push_back({Value::Str(TypeId::kText, std::move(line))});
    return out;
  }
  if (IsDml(node)) {
    txn_.NoteQuery();
    std::string_view command = std::holds_alternative<InsertStmt>(node) ? "INSERT" : std::holds_alternative<UpdateStmt>(node) ? "UPDATE" : "DELETE";
    if (auto writable = txn_.RequireWritable(command); !writable) return std::unexpected(writable.error());
    auto analysis = Revalidate(p);
    if (!analysis) return std::unexpected(analysis.error());
    portal.analysis = *analysis;
    if (auto attached = Attach(*portal.analysis, ctx); !attached) return std::unexpected(attached.error());
    return RunDml(std::shared_ptr<const DmlPlan>(portal.analysis, &portal.analysis->dml->plan), ctx);
  }
  if (const auto* set = std::get_if<SetStmt>(&node)) return RunSet(*set, settings_, txn_, sink);
  if (const auto* show = std::get_if<ShowStmt>(&node)) return RunShow(*show, settings_);
  if (const auto* txn = std::get_if<TransactionStmt>(&node)) return RunTransaction(*txn, settings_, txn_, sink);
  if (IsDdl(node)) {
    txn_.NoteQuery();
    auto t = txn_.Txn();
    if (!t) return std::unexpected(t.error());
    DdlContext ddl{node_->Catalog(machine_), node_->Caches(machine_), **t, settings_, *p.statement->source, ctx.output};
    return RunDdl(node, ddl);
  }
  // Analyze refused every other kind (NotRunnable).
  if (const auto* unsupported = std::get_if<UnsupportedStmt>(&node)) return std::unexpected(unsupported->error);
  return std::unexpected(MakeError("XX000", "statement kind without an executor"));
}

std::expected<ExecuteResult, Error> SessionImpl::Run(PortalImpl& portal, int64_t max_rows, ResultSink& sink, bool describe) {
  const PreparedImpl& p = *portal.prepared;
  if (!p.statement) {
    ExecuteResult empty;
    empty.empty_query = true;
    return empty;
  }
  if (!portal.output) {
    if (txn_.state() == TransactionBlock::State::kFailed && !IsTransactionExit(p)) return Fail(AbortedBlock(), sink);
    // A statement run with no transaction open starts one (BEGIN too): now() is its start.
    int64_t statement_start = ClockNow();
    if (txn_.state() == TransactionBlock::State::kIdle) transaction_start_ = statement_start;
    txn_.StartStatement();
    if (cancel_ != nullptr) cancel_->Clear();
    ExecContext ctx{portal.params, settings_, cancel_, std::chrono::steady_clock::time_point::max(),
                    settings_.Text()};
    ctx.transaction_start = transaction_start_;
    ctx.statement_start = statement_start;
    ctx.transaction = &txn_;
    if (int64_t timeout = settings_.StatementTimeoutMs(); timeout > 0) {
      ctx.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout);
    }
    auto run = [&]() -> std::expected<StatementOutput, Error> {
      auto output = RunStatement(p, portal, ctx, sink);
      if (!output) return output;
      if (auto committed = txn_.EndStatement(); !committed) return std::unexpected(committed.error());
      return output;
    };
    auto output = run();
    // A statement that is its whole implicit transaction is retried here after a conflict, since
    // nothing of it reached the client (TransactionBlock::CanRetryStatement): the executors of
    // RetryableOutsideBlock statements send nothing before they succeed (rows and notices wait
    // in the output).
    auto backoff = kRetryBackoff;
    for (int attempt = 0; !output && output.error().sqlstate == "40001" && attempt < kMaxRetries &&
                          txn_.CanRetryStatement() && RetryableOutsideBlock(p.statement->node);
         ++attempt) {
      txn_.AbortStatementTxn();
      cluster::FiberPool::SleepFor(backoff);
      backoff = std::min(backoff * 2, kMaxRetryBackoff);
      output = run();
    }
    if (!output) return Fail(output.error(), sink);
    for (const Notice& notice : output->notices) sink.Notice(notice);
    portal.output = std::move(*output);
  }
  std::span<const Column> columns = portal.ResultColumns();
  if (describe && !columns.empty()) sink.RowDescription(columns);
  TextOptions options = settings_.Text();
  const auto& rows = portal.output->rows;
  size_t end = max_rows > 0 ? std::min(rows.size(), portal.next_row + static_cast<size_t>(max_rows)) : rows.size();
  size_t sent = end - portal.next_row;
  for (; portal.next_row < end; ++portal.next_row) {
    const std::vector<Value>& row = rows[portal.next_row];
    encoded_row_.resize(row.size());
    wire_row_.assign(row.size(), std::nullopt);
    for (size_t i = 0; i < row.size(); ++i) {
      if (row[i].IsNull()) continue;
      if (columns[i].format == Format::kText && TextIsStored(row[i].type)) {
        wire_row_[i] = row[i].AsString();  // the row outlives the DataRow
        continue;
      }
      encoded_row_[i] = columns[i].format == Format::kBinary ? EncodeBinary(row[i]) : FormatText(row[i], options);
      wire_row_[i] = encoded_row_[i];
    }
    sink.DataRow(wire_row_);
  }
  ExecuteResult result;
  // As PostgreSQL's PortalRunSelect: a limited Execute that sent its full quota leaves the
  // portal suspended even when no rows remain; the next Execute completes it ("SELECT 0").
  if (max_rows > 0 && sent == static_cast<size_t>(max_rows)) {
    result.suspended = true;
    return result;
  }
  result.command_tag = portal.output->tag;
  if (portal.output->counts_rows) result.command_tag.append(" ").append(std::to_string(sent));
  return result;
}

class EngineImpl final : public Engine {
 public:
  explicit EngineImpl(EngineOptions options) : options_(std::move(options)) {}

  std::expected<std::unique_ptr<Session>, Error> NewSession(SessionOptions options) override {
    auto fatal = [](Error e) {
      e.severity = Error::Severity::kFatal;
      return std::unexpected(std::move(e));
    };
    if (std::ranges::find(options_.databases, options.database) == options_.databases.end()) {
      return fatal(MakeError("3D000", fmt::format("database \"{}\" does not exist", options.database)));
    }
    options.startup_settings.insert(options.startup_settings.begin(), options_.settings.begin(), options_.settings.end());
    auto settings = Settings::Create(options);
    if (!settings) return fatal(settings.error());
    int machine = 0;
    std::unique_ptr<txn::Worker> worker;
    if (options_.node) {
      machine = options_.node->NextMachine();
      worker = options_.node->NewWorker(machine);
      if (!worker) return fatal(MakeError("53300", "sorry, too many clients already"));
    }
    return std::make_unique<SessionImpl>(std::move(*settings), options, options_.node, machine, std::move(worker),
                                         options_.databases);
  }

 private:
  EngineOptions options_;
};

}  // namespace

std::unique_ptr<Engine> NewEngine(EngineOptions options) { return std::make_unique<EngineImpl>(std::move(options)); }

}  // namespace farmdb::sql
