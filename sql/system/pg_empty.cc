// Catalogs of features farmdb does not have, present so psql's and pgjdbc's queries that join
// them run: inheritance, row security policies, extended statistics, publications and role
// membership are all empty, and comments (pg_description) hold only initdb's comment on the
// public schema (farmdb has no COMMENT ON). pg_collation has the three collations every
// PostgreSQL database has.
#include "sql/system/catalog_functions.h"
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

ViewRows CollationRows(const SystemViewContext&, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  auto add = [&](Oid oid, std::string_view name, char provider, std::optional<std::string_view> locale) {
    RowBuilder r(columns);
    r.Set("oid", OidValue(oid)).Set("collname", NameValue(name))
        .Set("collnamespace", OidValue(storage::kPgCatalogNamespace))
        .Set("collowner", OidValue(storage::kBootstrapSuperuser)).Set("collprovider", CharValue(provider))
        .Set("collisdeterministic", BoolValue(true)).Set("collencoding", Int4Value(-1))
        .SetNull("colliculocale").SetNull("collversion");
    if (locale) r.Set("collcollate", TextValue(*locale)).Set("collctype", TextValue(*locale));
    else r.SetNull("collcollate").SetNull("collctype");
    rows.push_back(r.Take());
  };
  add(kDefaultCollation, "default", 'd', std::nullopt);
  add(kCCollation, "C", 'c', "C");
  add(kPosixCollation, "POSIX", 'c', "POSIX");
  return rows;
}

ViewRows DescriptionRows(const SystemViewContext&, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const BuiltinDescription& d : BuiltinDescriptions()) {
    rows.push_back(RowBuilder(columns).Set("objoid", OidValue(d.objoid)).Set("classoid", OidValue(d.classoid))
                       .Set("objsubid", Int4Value(0)).Set("description", TextValue(d.description)).Take());
  }
  return rows;
}

// A catalog table of pg_catalog (relkind 'r') with PostgreSQL 15's OID.
void Add(std::vector<std::unique_ptr<SystemView>>& views, std::string_view name, Oid oid,
         std::vector<SystemColumn> columns, GeneratedView::RowsFn rows = NoRows) {
  views.push_back(std::make_unique<GeneratedView>("pg_catalog", name, oid, 'r', std::move(columns), rows));
}

}  // namespace

void AppendEmptyViews(std::vector<std::unique_ptr<SystemView>>& views) {
  Add(views, "pg_description", 2609, {{"objoid", kOid}, {"classoid", kOid}, {"objsubid", kInt4}, {"description", kText}},
      DescriptionRows);
  Add(views, "pg_inherits", 2611, {{"inhrelid", kOid}, {"inhparent", kOid}, {"inhseqno", kInt4}, {"inhdetachpending", kBool}});
  Add(views, "pg_policy", 3256, {{"oid", kOid}, {"polname", kName}, {"polrelid", kOid}, {"polcmd", kChar},
                           {"polpermissive", kBool}, {"polroles", kOidArray}, {"polqual", kPgNodeTree},
                           {"polwithcheck", kPgNodeTree}});
  Add(views, "pg_statistic_ext", 3381, {{"oid", kOid}, {"stxrelid", kOid}, {"stxname", kName}, {"stxnamespace", kOid},
                                  {"stxowner", kOid}, {"stxstattarget", kInt4}, {"stxkeys", kInt2Vector},
                                  {"stxkind", kCharArray}, {"stxexprs", kPgNodeTree}});
  Add(views, "pg_publication", 6104, {{"oid", kOid}, {"pubname", kName}, {"pubowner", kOid}, {"puballtables", kBool},
                                {"pubinsert", kBool}, {"pubupdate", kBool}, {"pubdelete", kBool},
                                {"pubtruncate", kBool}, {"pubviaroot", kBool}});
  Add(views, "pg_publication_namespace", 6237, {{"oid", kOid}, {"pnpubid", kOid}, {"pnnspid", kOid}});
  Add(views, "pg_publication_rel", 6106, {{"oid", kOid}, {"prpubid", kOid}, {"prrelid", kOid}, {"prqual", kPgNodeTree},
                                    {"prattrs", kInt2Vector}});
  Add(views, "pg_auth_members", 1261, {{"roleid", kOid}, {"member", kOid}, {"grantor", kOid}, {"admin_option", kBool}});
  Add(views, "pg_collation", 3456, {{"oid", kOid}, {"collname", kName}, {"collnamespace", kOid}, {"collowner", kOid},
                              {"collprovider", kChar}, {"collisdeterministic", kBool}, {"collencoding", kInt4},
                              {"collcollate", kText}, {"collctype", kText}, {"colliculocale", kText},
                              {"collversion", kText}},
      CollationRows);
}

}  // namespace farmdb::sql
