// Text and binary wire formats of every type, in and out, as PostgreSQL 15's typinput/
// typoutput/typreceive/typsend functions produce and accept them.
//
// Thread-safety: pure functions.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "sql/types/datetime.h"
#include "types/value.h"

namespace farmdb::sql {

// Session settings that change text input and output.
struct TextOptions {
  int extra_float_digits = 1;  // > 0: shortest round-trip floats (PG 12+); else %.{15+n}g
  bool bytea_hex = true;       // bytea_output = hex | escape
  DateStyle date_style;        // date/timestamp output style; its order also reads input
  TimeZone time_zone = TimeZone::Utc();  // timestamptz input without a zone, and output
};

// Text input (typinput). NULL never reaches here.
std::expected<Value, Error> ParseText(TypeId type, std::string_view text, const TextOptions& options);
std::string FormatText(const Value& value, const TextOptions& options);
// Types whose text form is the stored string itself, unchanged by FormatText: a result row can
// send such a value as it is, without FormatText's copy.
bool TextIsStored(TypeId type);
// Binary input (typreceive). Too few bytes fail as PostgreSQL's pq_getmsg* do (08P01
// "insufficient data left in message"); invalid contents with the receive function's 22P03;
// bytes left over with 22P03 kIncorrectBinaryFormat, which callers complete for their context
// (Bind: "... in bind parameter N").
std::expected<Value, Error> DecodeBinary(TypeId type, std::string_view bytes);
inline constexpr std::string_view kIncorrectBinaryFormat = "incorrect binary data format";
std::string EncodeBinary(const Value& value);

// PostgreSQL's float output (float4out/float8out) under the given extra_float_digits.
std::string FormatFloat(double value, bool is_float4, int extra_float_digits);

}  // namespace farmdb::sql
