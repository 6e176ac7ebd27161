// pg_roles, pg_user and pg_database: roles from the catalog (plus PostgreSQL's built-in
// pg_database_owner, which owns the public schema), and the databases the engine serves.
//
// farmdb's roles carry only rolsuper and rolcanlogin; a superuser may do everything the other
// attributes grant (create roles and databases, replicate, bypass RLS), so they follow
// rolsuper. Passwords show as ******** as in PostgreSQL's pg_roles and pg_user views.
#include "sql/system/catalog_functions.h"
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

struct RoleFacts {
  Oid oid;
  std::string_view rolname;
  bool rolsuper;
  bool rolcanlogin;
};

std::vector<RoleFacts> Roles(const SystemViewContext& ctx) {
  std::vector<RoleFacts> roles;
  for (const auto& [oid, r] : ctx.catalog.roles()) roles.push_back({oid, r.rolname, r.rolsuper, r.rolcanlogin});
  if (ctx.catalog.RoleByOid(kPgDatabaseOwner) == nullptr) {
    roles.push_back({kPgDatabaseOwner, "pg_database_owner", false, false});
  }
  return roles;
}

ViewRows RoleRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const RoleFacts& r : Roles(ctx)) {
    rows.push_back(RowBuilder(columns)
                       .Set("rolname", NameValue(r.rolname)).Set("rolsuper", BoolValue(r.rolsuper))
                       .Set("rolinherit", BoolValue(true)).Set("rolcreaterole", BoolValue(r.rolsuper))
                       .Set("rolcreatedb", BoolValue(r.rolsuper)).Set("rolcanlogin", BoolValue(r.rolcanlogin))
                       .Set("rolreplication", BoolValue(r.rolsuper)).Set("rolconnlimit", Int4Value(-1))
                       .Set("rolpassword", TextValue("********")).SetNull("rolvaliduntil")
                       .Set("rolbypassrls", BoolValue(r.rolsuper)).Set("oid", OidValue(r.oid))
                       .Take());
  }
  return rows;
}

ViewRows UserRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const RoleFacts& r : Roles(ctx)) {
    if (!r.rolcanlogin) continue;
    rows.push_back(RowBuilder(columns)
                       .Set("usename", NameValue(r.rolname)).Set("usesysid", OidValue(r.oid))
                       .Set("usecreatedb", BoolValue(r.rolsuper)).Set("usesuper", BoolValue(r.rolsuper))
                       .Set("userepl", BoolValue(r.rolsuper)).Set("usebypassrls", BoolValue(r.rolsuper))
                       .Set("passwd", TextValue("********")).SetNull("valuntil")
                       .Take());
  }
  return rows;
}

// initdb's OIDs for its databases; any other database gets one from the user range by position.
Oid DatabaseOid(std::string_view name, size_t position) {
  if (name == "template1") return 1;
  if (name == "template0") return 4;
  if (name == "postgres") return 5;
  return storage::kFirstNormalOid + static_cast<Oid>(position);
}

// initdb leaves postgres with default privileges (NULL) and revokes TEMP on the templates
// (PUBLIC may CONNECT; the owner has CONNECT, TEMP and CREATE).
Value DatabaseAcl(const SystemViewContext& ctx, std::string_view database) {
  if (!database.starts_with("template")) return Value::Null(kAclitemArray);
  std::string owner = PgGetUserById(ctx, storage::kBootstrapSuperuser);
  return Value::Array(kAclitemArray,
                      ArrayValue{.elements = {Value::Str(kAclitem, "=c/" + owner), Value::Str(kAclitem, owner + "=CTc/" + owner)}});
}

ViewRows DatabaseRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  std::vector<std::string_view> names(ctx.databases.begin(), ctx.databases.end());
  if (names.empty()) names.push_back(ctx.database);
  for (size_t i = 0; i < names.size(); ++i) {
    rows.push_back(RowBuilder(columns)
                       .Set("oid", OidValue(DatabaseOid(names[i], i))).Set("datname", NameValue(names[i]))
                       .Set("datdba", OidValue(storage::kBootstrapSuperuser))
                       .Set("encoding", Int4Value(6))  // PG_UTF8
                       .Set("datlocprovider", CharValue('c'))
                       .Set("datistemplate", BoolValue(names[i].starts_with("template")))
                       .Set("datallowconn", BoolValue(names[i] != "template0"))
                       .Set("datconnlimit", Int4Value(-1)).Set("dattablespace", OidValue(1663))
                       // farmdb compares strings bytewise: the C collation.
                       .Set("datcollate", TextValue("C")).Set("datctype", TextValue("C"))
                       .SetNull("daticulocale").SetNull("datcollversion")
                       .Set("datacl", DatabaseAcl(ctx, names[i]))
                       .Take());
  }
  return rows;
}

}  // namespace

void AppendPgRoleViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_roles", 12000, 'v',
      std::vector<SystemColumn>{
          {"rolname", kName}, {"rolsuper", kBool}, {"rolinherit", kBool}, {"rolcreaterole", kBool},
          {"rolcreatedb", kBool}, {"rolcanlogin", kBool}, {"rolreplication", kBool}, {"rolconnlimit", kInt4},
          {"rolpassword", kText}, {"rolvaliduntil", kTimestampTz}, {"rolbypassrls", kBool}, {"oid", kOid}},
      RoleRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_user", 12014, 'v',
      std::vector<SystemColumn>{
          {"usename", kName}, {"usesysid", kOid}, {"usecreatedb", kBool}, {"usesuper", kBool}, {"userepl", kBool},
          {"usebypassrls", kBool}, {"passwd", kText}, {"valuntil", kTimestampTz}},
      UserRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_database", 1262, 'r',
      std::vector<SystemColumn>{
          {"oid", kOid}, {"datname", kName}, {"datdba", kOid}, {"encoding", kInt4}, {"datlocprovider", kChar},
          {"datistemplate", kBool}, {"datallowconn", kBool}, {"datconnlimit", kInt4}, {"dattablespace", kOid},
          {"datcollate", kText}, {"datctype", kText}, {"daticulocale", kText}, {"datcollversion", kText},
          {"datacl", kAclitemArray}},
      DatabaseRows));
}

}  // namespace farmdb::sql
