// Settings: one session's configuration values (PostgreSQL GUCs) with transactional semantics.
//
// Every statement runs inside a transaction (implicit or an explicit block); the session calls
// BeginTransaction/EndTransaction around it. Within a transaction, SET changes the value and
// the value that survives commit; SET LOCAL changes only the value, which commit reverts; abort
// reverts both (guc.c's AtEOXact_GUC). Names with a dot that no definition claims are
// placeholders (custom options), as in PostgreSQL.
// Thread-safety: owned by one session; not thread-safe.
#pragma once

#include <expected>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sql/session.h"
#include "sql/settings/setting_defs.h"
#include "sql/types/type_io.h"

namespace farmdb::sql {

// One argument of SET as written: a string literal or a bare word/number.
struct SetArg {
  std::string text;
  bool quoted = false;
};

class Settings {
 public:
  // Session defaults: the table's defaults, then the identity, then the startup parameters
  // (any error is returned for the caller to make FATAL).
  static std::expected<Settings, Error> Create(const SessionOptions& options);
  Settings(Settings&&) = default;
  Settings& operator=(Settings&&) = default;
  Settings(const Settings&) = delete;
  Settings& operator=(const Settings&) = delete;

  // The current value, or 42704 for an unknown name (std::nullopt instead when missing_ok).
  std::expected<std::optional<std::string>, Error> Get(std::string_view name, bool missing_ok) const;
  // SHOW's column name for `name`: the canonical spelling, or the lower-cased placeholder name.
  std::string DisplayName(std::string_view name) const;
  // SET name = value (std::nullopt: DEFAULT). Requires an open transaction.
  std::expected<void, Error> Set(std::string_view name, std::optional<std::string> value, bool is_local);
  // Turns SET's argument list into one value (joining GUC_LIST_INPUT lists).
  std::expected<std::string, Error> FlattenArgs(std::string_view name, std::span<const SetArg> args) const;
  void ResetAll();

  struct Row {
    std::string name, setting, description;
  };
  std::vector<Row> All() const;  // SHOW ALL, sorted by name
  std::vector<std::pair<std::string, std::string>> Reported() const;
  // Changes whenever a value that SET can change changes (not the per-transaction
  // transaction_isolation/transaction_read_only), so callers can skip unchanged work per statement.
  uint64_t Generation() const { return generation_; }

  // Opens a transaction with the session's default characteristics
  // (default_transaction_isolation, default_transaction_read_only).
  void BeginTransaction();
  void EndTransaction(bool commit);

  // What every transaction and statement consults, without a lookup by name: the current
  // transaction's characteristics and farmdb.strict.
  const std::string& TransactionIsolation() const { return hot_.transaction_isolation->value; }
  bool TransactionReadOnly() const { return hot_.transaction_read_only->value == "on"; }
  bool Strict() const { return hot_.strict->value != "off"; }
  // synchronous_commit: off acknowledges a commit before it is durable against a power loss;
  // every other value (on, local, remote_write, remote_apply) waits for that (txn::Txn).
  bool SynchronousCommit() const { return hot_.synchronous_commit->value != "off"; }

  // The settings that shape text input and output of values (parsed once per Generation()).
  const TextOptions& Text() const;
  int64_t StatementTimeoutMs() const;

 private:
  Settings() = default;
  struct Entry {
    const SettingDef* def = nullptr;  // nullptr: a placeholder
    std::string value;
    std::string reset_value;  // the session default (RESET)
  };
  struct Saved {
    std::string before;   // value at transaction start (abort restores it)
    std::string session;  // value that survives commit (SET LOCAL leaves it alone)
  };

  Entry* Find(std::string_view name);
  const Entry* Find(std::string_view name) const;
  const std::string& ValueOf(std::string_view canonical_name) const;

  // What every statement consults, parsed once per generation (Text, StatementTimeoutMs).
  struct Derived {
    uint64_t generation = 0;  // generation_ these were computed at; 0 = never
    TextOptions text;
    int64_t statement_timeout_ms = 0;
  };
  const Derived& Current() const;

  // Entries every statement reads, found once (std::map nodes never move, also when the map is
  // moved; a copy would point into the original, so Settings is move-only).
  struct Hot {
    Entry* transaction_isolation = nullptr;
    Entry* transaction_read_only = nullptr;
    const Entry* default_transaction_isolation = nullptr;
    const Entry* default_transaction_read_only = nullptr;
    const Entry* strict = nullptr;
    const Entry* synchronous_commit = nullptr;
  };
  Hot hot_;

  std::map<std::string, Entry, std::less<>> entries_;  // by lower-cased name
  std::map<std::string, Saved> touched_;               // entries changed in the current transaction
  uint64_t generation_ = 1;
  mutable Derived derived_;
};

}  // namespace farmdb::sql
