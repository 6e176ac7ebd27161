// Text and binary formats of arrays, int2vector/oidvector and records, as PostgreSQL 15's
// array_in/array_out/array_recv/array_send, int2vectorin/out, and record_out/record_send write
// and read them. type_io.cc's switches call these for the container types.
//
// farmdb's arrays have one dimension: input with nested braces or several dimension bounds
// fails with 0A000. Records are output only (an anonymous record has no input, as in
// PostgreSQL).
//
// Thread-safety: pure functions.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "sql/types/type_io.h"
#include "types/binary_reader.h"

namespace farmdb::sql {

// array_in ('{1,2}', '[0:1]={1,2}', '{"a b",NULL}') and int2vectorin/oidvectorin ("1 2").
std::expected<Value, Error> ParseArray(TypeId type, std::string_view text, const TextOptions& options);
// array_out ('{1,NULL,"a b"}', '[0:1]={1,2}' for a lower bound other than 1); vectors print
// their elements separated by spaces.
std::string FormatArray(const Value& value, const TextOptions& options);
// record_out: '(1,,"a b")'.
std::string FormatRecord(const Value& value, const TextOptions& options);

// array_recv (one dimension at most) and array_send; record_send. Anonymous record input is
// 0A000, as record_recv says for RECORDOID.
std::expected<Value, Error> ReceiveArray(TypeId type, BinaryReader& reader);
std::string SendArray(const Value& value);
std::string SendRecord(const Value& value);
Error RecordInput();

}  // namespace farmdb::sql
