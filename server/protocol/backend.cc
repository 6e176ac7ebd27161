#include "server/protocol/backend.h"

#include <cstring>

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

namespace {
// The row messages below size their message once and fill it (StoreInt16/StoreInt32, codec.h),
// instead of a capacity check and a memcpy call per two- or four-byte field.
char* StoreBytes(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}
// Appends the type byte and length word of a message whose body is `body` bytes, and room for
// the body; returns where the body goes.
char* AppendMessage(std::string& out, char type, size_t body) {
  size_t at = out.size();
  out.resize(at + 5 + body);
  char* p = out.data() + at;
  *p++ = type;
  return StoreInt32(p, static_cast<int32_t>(body + 4));
}
}  // namespace

void PutRowDescription(std::string& out, std::span<const sql::Column> columns) {
  constexpr size_t kFixedPerColumn = 1 + 4 + 2 + 4 + 2 + 4 + 2;  // NUL, then the fields below
  size_t body = 2;
  for (const auto& c : columns) body += c.name.size() + kFixedPerColumn;
  char* p = AppendMessage(out, 'T', body);
  p = StoreInt16(p, static_cast<int16_t>(columns.size()));
  for (const auto& c : columns) {
    p = StoreBytes(p, c.name);
    *p++ = '\0';
    p = StoreInt32(p, static_cast<int32_t>(c.table_oid));
    p = StoreInt16(p, c.column_number);
    p = StoreInt32(p, static_cast<int32_t>(c.type_oid));
    p = StoreInt16(p, c.type_size);
    p = StoreInt32(p, c.type_modifier);
    p = StoreInt16(p, static_cast<int16_t>(c.format));
  }
}

void PutParameterDescription(std::string& out, std::span<const sql::Oid> types) {
  size_t at = BeginMessage(out, 't');
  PutInt16(out, static_cast<int16_t>(types.size()));
  for (sql::Oid oid : types) PutInt32(out, static_cast<int32_t>(oid));
  EndMessage(out, at);
}

void PutDataRow(std::string& out, std::span<const sql::WireValue> values) {
  size_t body = 2;
  for (const auto& v : values) body += 4 + (v ? v->size() : 0);
  char* p = AppendMessage(out, 'D', body);
  p = StoreInt16(p, static_cast<int16_t>(values.size()));
  for (const auto& v : values) {
    p = StoreInt32(p, v ? static_cast<int32_t>(v->size()) : -1);
    if (v) p = StoreBytes(p, *v);
  }
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
