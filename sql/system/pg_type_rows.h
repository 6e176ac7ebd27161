// The built-in pg_type rows (pg_type.cc), for pg_type itself and for the pg_attribute columns
// copied from a column's type (attlen, attbyval, attalign, attstorage, attcollation).
//
// Thread-safety: immutable.
#pragma once

#include <string_view>

#include "types/error.h"

namespace farmdb::sql {

struct PgTypeRow {
  std::string_view typname;
  Oid oid;
  int16_t typlen;
  bool typbyval;
  char typtype;
  char typcategory;
  bool typispreferred;
  Oid typelem;
  Oid typarray;
  char typalign;
  char typstorage;
  Oid typcollation;
  std::string_view typinput;  // the input function's name (regproc)
};

// The row of a built-in type, or nullptr.
const PgTypeRow* PgTypeByOid(Oid oid);

}  // namespace farmdb::sql
