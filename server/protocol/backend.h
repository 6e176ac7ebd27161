// Encoders for backend (server -> client) messages of protocol v3.
//
// Each function appends one complete message to `out`; the connection decides when the buffer
// is flushed. Pure and reentrant, like codec.h; separate from it because it speaks the SQL seam's
// types (sql/session.h), which the clang-built fuzz target does not compile.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sql/session.h"

namespace farmdb::server {

// Authentication request codes ('R').
enum class AuthCode : int32_t {
  kOk = 0,
  kCleartextPassword = 3,
  kMd5Password = 5,
  kSasl = 10,
  kSaslContinue = 11,
  kSaslFinal = 12,
};

void PutAuthentication(std::string& out, AuthCode code, std::string_view extra = {});
void PutParameterStatus(std::string& out, std::string_view name, std::string_view value);
void PutBackendKeyData(std::string& out, int32_t pid, int32_t secret);
void PutReadyForQuery(std::string& out, sql::TxnStatus status);
// NegotiateProtocolVersion: the newest 3.x minor served and the `_pq_.` options not recognised.
void PutNegotiateProtocolVersion(std::string& out, uint16_t minor,
                                 const std::vector<std::string>& unrecognized);
void PutRowDescription(std::string& out, std::span<const sql::Column> columns);
void PutParameterDescription(std::string& out, std::span<const sql::Oid> types);
void PutDataRow(std::string& out, std::span<const sql::WireValue> values);
void PutCommandComplete(std::string& out, std::string_view tag);
void PutError(std::string& out, const sql::Error& error);
void PutNotice(std::string& out, const sql::Notice& notice);
// CopyInResponse ('G') or CopyOutResponse ('H').
void PutCopyResponse(std::string& out, char type, const sql::CopyFormat& format);
void PutCopyData(std::string& out, std::string_view bytes);
// Messages without a body: ParseComplete '1', BindComplete '2', CloseComplete '3', NoData 'n',
// PortalSuspended 's', EmptyQueryResponse 'I', CopyDone 'c'.
void PutEmpty(std::string& out, char type);

}  // namespace farmdb::server
