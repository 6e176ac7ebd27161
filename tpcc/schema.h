// schema: the nine TPC-C tables (Clause 1.3) and their indexes, as DDL that runs unchanged on
// farmdb and PostgreSQL 15. See schema.cc for the index choices.
#pragma once

#include <span>
#include <string_view>

namespace farmdb::tpcc {

// DROP TABLE IF EXISTS for every table, then CREATE TABLE and CREATE INDEX, in order.
std::span<const std::string_view> SchemaStatements();

// The nine table names, in load order.
std::span<const std::string_view> TableNames();

}  // namespace farmdb::tpcc
