#include "sql/settings/settings.h"
#include "sql/types/ascii.h"

#include <algorithm>
#include <utility>
#include <fmt/format.h>

namespace farmdb::sql {
namespace {

Error Unrecognized(std::string_view name) {
  return MakeError("42704", fmt::format("unrecognized configuration parameter \"{}\"", name));
}

// quote_identifier: quotes unless the word is a plain lower-case identifier.
std::string QuoteIdentifier(std::string_view s) {
  bool plain = !s.empty() && (std::islower(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (char c : s) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) plain = false;
  }
  if (plain) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

// Settings the transaction itself owns: SET on them lasts only until the transaction ends.
bool IsTransactionScoped(std::string_view lower_name) {
  return lower_name == "transaction_isolation" || lower_name == "transaction_read_only";
}

}  // namespace

std::expected<Settings, Error> Settings::Create(const SessionOptions& options) {
  Settings s;
  for (const SettingDef& def : SettingDefs()) {
    s.entries_[AsciiLower(def.name)] = Entry{&def, std::string(def.default_value), std::string(def.default_value)};
  }
  auto identity = [&](std::string_view name, std::string value) {
    Entry& e = s.entries_[std::string(name)];
    e.value = e.reset_value = std::move(value);
  };
  identity("is_superuser", options.is_superuser ? "on" : "off");
  identity("session_authorization", options.user);
  for (const auto& [name, value] : options.startup_settings) {
    Entry* e = s.Find(name);
    if (e == nullptr && name.find('.') == std::string::npos) return std::unexpected(Unrecognized(name));
    if (e != nullptr && e->def != nullptr && e->def->read_only) {
      return std::unexpected(MakeError("55P02", fmt::format("parameter \"{}\" cannot be changed", e->def->name)));
    }
    std::string canonical = value;
    if (e != nullptr && e->def != nullptr) {
      auto normalized = NormalizeSetting(*e->def, value, e->value, e->reset_value);
      if (!normalized) return std::unexpected(normalized.error());
      canonical = std::move(*normalized);
    }
    Entry& target = s.entries_[AsciiLower(name)];
    target.value = target.reset_value = canonical;
  }
  s.hot_ = {s.Find("transaction_isolation"), s.Find("transaction_read_only"),
            s.Find("default_transaction_isolation"), s.Find("default_transaction_read_only"),
            s.Find("farmdb.strict"), s.Find("synchronous_commit")};
  return s;
}

Settings::Entry* Settings::Find(std::string_view name) {
  return const_cast<Entry*>(std::as_const(*this).Find(name));
}

const Settings::Entry* Settings::Find(std::string_view name) const {
  // Names from farmdb's own code are lower-case already: look them up without a copy.
  bool lower = std::ranges::none_of(name, [](char c) { return c >= 'A' && c <= 'Z'; });
  auto it = lower ? entries_.find(name) : entries_.find(AsciiLower(name));
  return it == entries_.end() ? nullptr : &it->second;
}

const std::string& Settings::ValueOf(std::string_view canonical_name) const { return Find(canonical_name)->value; }

std::expected<std::optional<std::string>, Error> Settings::Get(std::string_view name, bool missing_ok) const {
  const Entry* e = Find(name);
  if (e == nullptr) {
    if (missing_ok) return std::nullopt;
    return std::unexpected(Unrecognized(name));
  }
  return e->value;
}

std::string Settings::DisplayName(std::string_view name) const {
  const Entry* e = Find(name);
  return e != nullptr && e->def != nullptr ? std::string(e->def->name) : AsciiLower(name);
}

std::expected<std::string, Error> Settings::FlattenArgs(std::string_view name, std::span<const SetArg> args) const {
  const Entry* e = Find(name);
  bool list = e != nullptr && e->def != nullptr && e->def->list_input;
  if (args.size() > 1 && !list) {
    return std::unexpected(MakeError("22023", fmt::format("SET {} takes only one argument", AsciiLower(name))));
  }
  std::string out;
  for (const SetArg& arg : args) {
    if (!out.empty()) out += ", ";
    // In a list, string literals are identifiers and get quote_identifier (guc.c flatten_set_variable_args).
    out += list && arg.quoted && e->def->name == "search_path" ? QuoteIdentifier(arg.text) : arg.text;
  }
  return out;
}

std::expected<void, Error> Settings::Set(std::string_view name, std::optional<std::string> value, bool is_local) {
  std::string key = AsciiLower(name);
  Entry* e = Find(key);
  if (e == nullptr) {
    if (key.find('.') == std::string::npos) return std::unexpected(Unrecognized(name));
    e = &entries_[key];  // a placeholder, as PostgreSQL creates for custom options
  }
  if (e->def != nullptr && e->def->read_only) {
    return std::unexpected(MakeError("55P02", fmt::format("parameter \"{}\" cannot be changed", e->def->name)));
  }
  std::string next = value ? *value : e->reset_value;
  if (value && e->def != nullptr) {
    auto normalized = NormalizeSetting(*e->def, *value, e->value, e->reset_value);
    if (!normalized) return std::unexpected(normalized.error());
    next = std::move(*normalized);
  }
  auto [it, inserted] = touched_.try_emplace(key, Saved{e->value, e->value});
  e->value = next;
  ++generation_;
  if (!is_local && !IsTransactionScoped(key)) it->second.session = next;
  return {};
}

void Settings::ResetAll() {
  for (auto& [key, e] : entries_) {
    if ((e.def != nullptr && e.def->read_only) || IsTransactionScoped(key)) continue;
    (void)Set(key, std::nullopt, /*is_local=*/false);
  }
}

std::vector<Settings::Row> Settings::All() const {
  std::vector<Row> rows;
  for (const auto& [key, e] : entries_) {
    if (e.def == nullptr) continue;
    rows.push_back(Row{std::string(e.def->name), e.value, std::string(e.def->description)});
  }
  std::ranges::sort(rows, {}, [](const Row& r) { return AsciiLower(r.name); });
  return rows;
}

std::vector<std::pair<std::string, std::string>> Settings::Reported() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SettingDef& def : SettingDefs()) {
    if (def.report) out.emplace_back(std::string(def.name), ValueOf(def.name));
  }
  return out;
}

void Settings::BeginTransaction() {
  touched_.clear();
  hot_.transaction_isolation->value = hot_.default_transaction_isolation->value;
  hot_.transaction_read_only->value = hot_.default_transaction_read_only->value;
}

void Settings::EndTransaction(bool commit) {
  if (touched_.empty()) return;
  for (auto& [key, saved] : touched_) {
    entries_[key].value = commit ? saved.session : saved.before;
  }
  touched_.clear();
  ++generation_;
}

const Settings::Derived& Settings::Current() const {
  if (derived_.generation == generation_) return derived_;
  Derived d;
  d.generation = generation_;
  d.text.extra_float_digits = static_cast<int>(SettingInt(*FindSetting("extra_float_digits"), ValueOf("extra_float_digits")));
  d.text.bytea_hex = ValueOf("bytea_output") == "hex";
  // The stored value is canonical, so it always parses.
  d.text.date_style = ParseDateStyle(ValueOf("DateStyle"), {}, {}).value_or(DateStyle{});
  d.text.time_zone = TimeZone::Load(ValueOf("TimeZone")).value_or(TimeZone::Utc());
  d.statement_timeout_ms = SettingInt(*FindSetting("statement_timeout"), ValueOf("statement_timeout"));
  derived_ = std::move(d);
  return derived_;
}

const TextOptions& Settings::Text() const { return Current().text; }

int64_t Settings::StatementTimeoutMs() const { return Current().statement_timeout_ms; }

}  // namespace farmdb::sql
