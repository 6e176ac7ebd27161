// System views: pg_catalog and information_schema relations generated from a CatalogSnapshot
// (and the session), so psql's \d family and pgjdbc's DatabaseMetaData read farmdb's catalog
// through the same queries they send PostgreSQL. The binder resolves a relation name to a
// SystemView when no user table of that name is found first (pg_catalog comes first on every
// search path, as in PostgreSQL); the executor scans the rows Rows() returns.
//
// Thread-safety: the registry is immutable (built once, shared by every session); Rows runs on
// the statement's thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sql/system/cluster_stats.h"
#include "storage/catalog_snapshot.h"
#include "types/value.h"

namespace farmdb::sql {

// What a view's rows are generated from.
struct SystemViewContext {
  const storage::CatalogSnapshot& catalog;
  std::string_view database;      // the session's database (pg_database, current_database())
  std::string_view user;          // the session's user
  std::span<const std::string> search_path;  // pg_table_is_visible, current_schemas
  std::span<const std::string> databases = {};  // every database the engine serves (pg_database)
  const ClusterStatsSource* cluster = nullptr;  // the node (farmdb_stat_*); null: those are empty
};

struct SystemColumn {
  std::string name;
  TypeId type;
  int32_t typmod = -1;
};

class SystemView {
 public:
  virtual ~SystemView() = default;
  virtual std::string_view schema() const = 0;  // "pg_catalog" or "information_schema"
  virtual std::string_view name() const = 0;
  // Its pg_class row: PostgreSQL 15's OID for the relation, 'r' for a catalog table, 'v' for a
  // view (pg_roles, the information_schema views).
  virtual Oid oid() const = 0;
  virtual char relkind() const = 0;
  virtual const std::vector<SystemColumn>& columns() const = 0;
  // Every row of the view, one Value per column (NULL or the column's type).
  virtual std::vector<std::vector<Value>> Rows(const SystemViewContext& context) const = 0;
};

// The view `schema`.`name`, or nullptr.
const SystemView* FindSystemView(std::string_view schema, std::string_view name);
// The view whose pg_class OID is `oid`, or nullptr.
const SystemView* SystemViewByOid(Oid oid);
// Every view, in registry order (tests; pg_class rows for the views would come from here).
std::vector<const SystemView*> AllSystemViews();

}  // namespace farmdb::sql
