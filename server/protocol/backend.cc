#include "server/protocol/backend.h"

#include "server/protocol/codec.h"

namespace farmdb::server {
namespace {

// ErrorResponse and NoticeResponse share the field layout.
void PutFields(std::string& out, char type, std::string_view severity, std::string_view sqlstate,
               std::string_view message, std::string_view detail, std::string_view hint,
               int position) {
  size_t at = BeginMessage(out, type);
  auto field = [&](char code, std::string_view value) {
    out.push_back(code);
    PutString(out, value);
  };
  field('S', severity);
  field('V', severity);
  field('C', sqlstate);
  field('M', message);
  if (!detail.empty()) field('D', detail);
  if (!hint.empty()) field('H', hint);
  if (position > 0) field('P', std::to_string(position));
  out.push_back('\0');
  EndMessage(out, at);
}

}  // namespace

void PutAuthentication(std::string& out, AuthCode code, std::string_view extra) {
  size_t at = BeginMessage(out, 'R');
  PutInt32(out, static_cast<int32_t>(code));
  out.append(extra);
  EndMessage(out, at);
}

void PutParameterStatus(std::string& out, std::string_view name, std::string_view value) {
  size_t at = BeginMessage(out, 'S');
  PutString(out, name);
  PutString(out, value);
  EndMessage(out, at);
}

void PutBackendKeyData(std::string& out, int32_t pid, int32_t secret) {
  size_t at = BeginMessage(out, 'K');
  PutInt32(out, pid);
  PutInt32(out, secret);
  EndMessage(out, at);
}

void PutReadyForQuery(std::string& out, sql::TxnStatus status) {
  size_t at = BeginMessage(out, 'Z');
  out.push_back(static_cast<char>(status));
  EndMessage(out, at);
}

void PutNegotiateProtocolVersion(std::string& out, uint16_t minor,
                                 const std::vector<std::string>& unrecognized) {
  size_t at = BeginMessage(out, 'v');
  PutInt32(out, static_cast<int32_t>((3u << 16) | minor));
  PutInt32(out, static_cast<int32_t>(unrecognized.size()));
  for (const auto& option : unrecognized) PutString(out, option);
  EndMessage(out, at);
}

void PutRowDescription(std::string& out, std::span<const sql::Column> columns) {
  size_t at = BeginMessage(out, 'T');
  PutInt16(out, static_cast<int16_t>(columns.size()));
  for (const auto& c : columns) {
    PutString(out, c.name);
    PutInt32(out, static_cast<int32_t>(c.table_oid));
    PutInt16(out, c.column_number);
    PutInt32(out, static_cast<int32_t>(c.type_oid));
    PutInt16(out, c.type_size);
    PutInt32(out, c.type_modifier);
    PutInt16(out, static_cast<int16_t>(c.format));
  }
  EndMessage(out, at);
}

void PutParameterDescription(std::string& out, std::span<const sql::Oid> types) {
  size_t at = BeginMessage(out, 't');
  PutInt16(out, static_cast<int16_t>(types.size()));
  for (sql::Oid oid : types) PutInt32(out, static_cast<int32_t>(oid));
  EndMessage(out, at);
}

void PutDataRow(std::string& out, std::span<const sql::WireValue> values) {
  size_t at = BeginMessage(out, 'D');
  PutInt16(out, static_cast<int16_t>(values.size()));
  for (const auto& v : values) {
    PutInt32(out, v ? static_cast<int32_t>(v->size()) : -1);
    if (v) out.append(*v);
  }
  EndMessage(out, at);
}

void PutCommandComplete(std::string& out, std::string_view tag) {
  size_t at = BeginMessage(out, 'C');
  PutString(out, tag);
  EndMessage(out, at);
}

void PutError(std::string& out, const sql::Error& error) {
  PutFields(out, 'E', error.severity == sql::Error::Severity::kFatal ? "FATAL" : "ERROR",
            error.sqlstate, error.message, error.detail, error.hint, error.position);
}

void PutNotice(std::string& out, const sql::Notice& notice) {
  PutFields(out, 'N', notice.severity, notice.sqlstate, notice.message, notice.detail, notice.hint,
            0);
}

void PutCopyResponse(std::string& out, char type, const sql::CopyFormat& format) {
  size_t at = BeginMessage(out, type);
  out.push_back(static_cast<char>(format.overall));
  PutInt16(out, static_cast<int16_t>(format.columns.size()));
  for (sql::Format f : format.columns) PutInt16(out, static_cast<int16_t>(f));
  EndMessage(out, at);
}

void PutCopyData(std::string& out, std::string_view bytes) {
  size_t at = BeginMessage(out, 'd');
  out.append(bytes);
  EndMessage(out, at);
}

void PutEmpty(std::string& out, char type) {
  size_t at = BeginMessage(out, type);
  EndMessage(out, at);
}

}  // namespace farmdb::server
