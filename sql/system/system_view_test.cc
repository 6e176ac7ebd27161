// The pg_catalog views and catalog functions over a catalog that CREATE TABLE built on a Node,
// compared with what PostgreSQL 15 shows for the same schema (regress/protocol/catalog_queries
// has the queries psql and pgjdbc send).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sql/exec/builtins.h"
#include "sql/settings/settings.h"
#include "sql/node.h"
#include "sql/session.h"
#include "sql/system/catalog_functions.h"
#include "sql/system/generated_view.h"
#include "sql/test_sink.h"
#include "storage/catalog.h"

namespace farmdb::sql {
namespace {

using Row = std::map<std::string, Value>;

class SystemViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NodeOptions node_options;
    node_options.machines = 1;
    node_options.region_size = 8ull << 20;
    node_options.roles = ConfigRoles();
    auto node = Node::Start(node_options);
    ASSERT_TRUE(node) << node.error();
    node_ = *node;
    EngineOptions options;
    options.node = node_;
    engine_ = NewEngine(std::move(options));
    SessionOptions session_options;
    session_options.user = "postgres";
    session_options.database = "postgres";
    session_options.is_superuser = true;
    auto s = engine_->NewSession(std::move(session_options));
    ASSERT_TRUE(s.has_value());
    session_ = std::move(*s);
    // The schema the catalog queries were captured on (see catalog_queries/README.md).
    Run("CREATE TABLE t (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', code varchar(10) UNIQUE, "
        "n numeric(10,2), created timestamptz)");
    Run("CREATE TABLE u (a int, b text)");
    snapshot_ = Snapshot();
    ASSERT_NE(snapshot_, nullptr);
    t_ = snapshot_->FindTable(storage::kPublicNamespace, "t");
    ASSERT_NE(t_, nullptr);
  }

  // The roles farmdb.conf would list (server/main.cc passes them to the Node).
  virtual std::vector<storage::RoleDef> ConfigRoles() const { return {}; }

  void Run(std::string_view sql) {
    sink_ = RecordingSink();
    auto r = session_->SimpleQuery(sql, sink_);
    ASSERT_TRUE(r.has_value()) << sql << ": " << r.error().message;
  }
  Error RunError(std::string_view sql) {
    sink_ = RecordingSink();
    auto r = session_->SimpleQuery(sql, sink_);
    return r ? Error{} : r.error();
  }

  storage::SnapshotPtr Snapshot() {
    auto worker = node_->NewWorker(0);
    for (;;) {
      auto t = *worker->Begin({});
      auto s = node_->Catalog(0).Snapshot(*t);
      if (s && t->Commit()) return *s;
      if (s || !s.error().IsRetryable()) return nullptr;
      t->Abort();
    }
  }

  SystemViewContext Context() const { return {*snapshot_, "postgres", "postgres", search_path_, databases_}; }

  // The view's rows as column name -> value, checking each row's shape against the columns.
  std::vector<Row> Rows(std::string_view name, std::string_view schema = "pg_catalog") {
    const SystemView* view = FindSystemView(schema, name);
    EXPECT_NE(view, nullptr) << name;
    if (view == nullptr) return {};
    std::vector<Row> out;
    for (const auto& values : view->Rows(Context())) {
      EXPECT_EQ(values.size(), view->columns().size());
      Row row;
      for (size_t i = 0; i < values.size() && i < view->columns().size(); ++i) {
        EXPECT_EQ(values[i].type, view->columns()[i].type) << name << "." << view->columns()[i].name;
        row[view->columns()[i].name] = values[i];
      }
      out.push_back(std::move(row));
    }
    return out;
  }
  // The one row whose `column` holds the string or integer `key`.
  Row Find(std::string_view view, std::string_view column, const Value& key) {
    std::vector<Row> found;
    for (Row& r : Rows(view)) {
      const Value& v = r.at(std::string(column));
      bool same = std::holds_alternative<std::string>(key.data)
                      ? std::holds_alternative<std::string>(v.data) && v.AsString() == key.AsString()
                      : std::holds_alternative<int64_t>(v.data) && v.AsInt() == key.AsInt();
      if (same) found.push_back(std::move(r));
    }
    EXPECT_EQ(found.size(), 1u) << view << " where " << column;
    return found.empty() ? Row{} : found[0];
  }

  std::shared_ptr<Node> node_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Session> session_;
  RecordingSink sink_;
  storage::SnapshotPtr snapshot_;
  const storage::TableDesc* t_ = nullptr;
  std::vector<std::string> search_path_ = {"postgres", "public"};  // "$user", public expanded
  std::vector<std::string> databases_ = {"postgres", "template1"};
};

Value Str(std::string_view s) { return Value::Str(TypeId::kText, std::string(s)); }
Value OidOf(int64_t oid) { return OidValue(oid); }
std::string S(const Value& v) { return v.AsString(); }
int64_t I(const Value& v) { return v.AsInt(); }

TEST_F(SystemViewTest, RegistryHasEveryRelationTheCapturedQueriesRead) {
  for (std::string_view name : {"pg_class", "pg_namespace", "pg_am", "pg_attribute", "pg_attrdef", "pg_type",
                                "pg_index", "pg_constraint", "pg_database", "pg_roles", "pg_user", "pg_description",
                                "pg_collation", "pg_inherits", "pg_policy", "pg_statistic_ext", "pg_publication",
                                "pg_publication_namespace", "pg_publication_rel", "pg_auth_members"}) {
    EXPECT_NE(FindSystemView("pg_catalog", name), nullptr) << name;
  }
  EXPECT_EQ(FindSystemView("pg_catalog", "pg_nothing"), nullptr);
  EXPECT_EQ(FindSystemView("public", "pg_class"), nullptr);
  EXPECT_EQ(SystemViewByOid(1259), FindSystemView("pg_catalog", "pg_class"));
  std::set<Oid> oids;
  for (const SystemView* view : AllSystemViews()) EXPECT_TRUE(oids.insert(view->oid()).second) << view->name();
  // Every view's rows have its columns' shape (Rows() checks it); column names are unique.
  for (const SystemView* view : AllSystemViews()) {
    Rows(view->name(), view->schema());
    std::set<std::string> names;
    for (const SystemColumn& c : view->columns()) EXPECT_TRUE(names.insert(c.name).second) << view->name() << "." << c.name;
  }
}

TEST_F(SystemViewTest, PgClassHasTablesIndexesAndSequences) {
  Row t = Find("pg_class", "relname", NameValue("t"));
  EXPECT_EQ(I(t["oid"]), t_->oid);
  EXPECT_EQ(S(t["relkind"]), "r");
  EXPECT_EQ(I(t["relnamespace"]), storage::kPublicNamespace);
  EXPECT_EQ(I(t["relowner"]), storage::kBootstrapSuperuser);
  EXPECT_EQ(I(t["relam"]), kHeapAm);
  EXPECT_EQ(I(t["relnatts"]), 5);
  EXPECT_TRUE(t["relhasindex"].AsBool());
  EXPECT_EQ(S(t["relpersistence"]), "p");
  EXPECT_EQ(S(t["relreplident"]), "d");
  EXPECT_TRUE(t["relpartbound"].IsNull());

  Row pkey = Find("pg_class", "relname", NameValue("t_pkey"));
  EXPECT_EQ(S(pkey["relkind"]), "i");
  EXPECT_EQ(I(pkey["relam"]), kBtreeAm);
  EXPECT_EQ(I(pkey["relnatts"]), 1);
  EXPECT_EQ(I(pkey["oid"]), t_->PrimaryKey()->oid);
  EXPECT_EQ(S(Find("pg_class", "relname", NameValue("t_code_key"))["relkind"]), "i");

  Row seq = Find("pg_class", "relname", NameValue("t_id_seq"));
  EXPECT_EQ(S(seq["relkind"]), "S");
  EXPECT_EQ(S(seq["relreplident"]), "n");
  Row u = Find("pg_class", "relname", NameValue("u"));
  EXPECT_FALSE(u["relhasindex"].AsBool());
  size_t user_relations = 0;
  for (Row& r : Rows("pg_class")) user_relations += I(r["relnamespace"]) == storage::kPublicNamespace;
  EXPECT_EQ(user_relations, 5u);  // t, t_pkey, t_code_key, t_id_seq, u

  // The system views have their PostgreSQL 15 rows and columns.
  Row pg_class = Find("pg_class", "relname", NameValue("pg_class"));
  EXPECT_EQ(I(pg_class["oid"]), 1259);
  EXPECT_EQ(S(pg_class["relkind"]), "r");
  EXPECT_EQ(I(pg_class["relnamespace"]), storage::kPgCatalogNamespace);
  EXPECT_EQ(S(Find("pg_class", "relname", NameValue("pg_roles"))["relkind"]), "v");
  EXPECT_EQ(I(Find("pg_class", "oid", OidOf(13425))["relnamespace"]), kInformationSchemaNamespace);
  for (Row& r : Rows("pg_attribute")) {
    if (I(r["attrelid"]) == 1259 && I(r["attnum"]) == 2) {
      EXPECT_EQ(S(r["attname"]), "relname");
      EXPECT_EQ(I(r["atttypid"]), 19);
    }
  }
}

TEST_F(SystemViewTest, PgAttributeAndAttrdefDescribeColumns) {
  std::vector<Row> cols;
  for (Row& r : Rows("pg_attribute")) {
    if (I(r["attrelid"]) == t_->oid) cols.push_back(std::move(r));
  }
  ASSERT_EQ(cols.size(), 5u);
  // As PostgreSQL 15 shows them: name, atttypid, atttypmod, attnotnull, atthasdef, attlen.
  struct Expected {
    const char* name;
    int64_t type, typmod;
    bool notnull, hasdef;
    int64_t len;
    const char* storage;
  };
  Expected expected[] = {{"id", 23, -1, true, true, 4, "p"},
                         {"name", 25, -1, true, true, -1, "x"},
                         {"code", 1043, 14, false, false, -1, "x"},
                         {"n", 1700, (10 << 16 | 2) + 4, false, false, -1, "m"},
                         {"created", 1184, -1, false, false, 8, "p"}};
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(expected[i].name);
    EXPECT_EQ(S(cols[i]["attname"]), expected[i].name);
    EXPECT_EQ(I(cols[i]["attnum"]), static_cast<int64_t>(i + 1));
    EXPECT_EQ(I(cols[i]["atttypid"]), expected[i].type);
    EXPECT_EQ(I(cols[i]["atttypmod"]), expected[i].typmod);
    EXPECT_EQ(cols[i]["attnotnull"].AsBool(), expected[i].notnull);
    EXPECT_EQ(cols[i]["atthasdef"].AsBool(), expected[i].hasdef);
    EXPECT_EQ(I(cols[i]["attlen"]), expected[i].len);
    EXPECT_EQ(S(cols[i]["attstorage"]), expected[i].storage);
    EXPECT_FALSE(cols[i]["attisdropped"].AsBool());
    EXPECT_EQ(S(cols[i]["attidentity"]), "");
  }
  EXPECT_EQ(I(cols[1]["attcollation"]), kDefaultCollation);
  EXPECT_EQ(I(cols[0]["attcollation"]), 0);
  // The unique index's one column.
  Row key = Find("pg_attribute", "attrelid", OidOf(t_->indexes[1].oid));
  EXPECT_EQ(S(key["attname"]), "code");
  EXPECT_EQ(I(key["attnum"]), 1);

  std::vector<Row> defs;
  for (Row& r : Rows("pg_attrdef")) {
    if (I(r["adrelid"]) == t_->oid) defs.push_back(std::move(r));
  }
  ASSERT_EQ(defs.size(), 2u);
  EXPECT_EQ(I(defs[0]["adnum"]), 1);
  EXPECT_EQ(S(defs[0]["adbin"]), "nextval('t_id_seq'::regclass)");
  EXPECT_EQ(I(defs[1]["adnum"]), 2);
  EXPECT_EQ(S(defs[1]["adbin"]), "'x'::text");
}

TEST_F(SystemViewTest, PgIndexAndPgConstraint) {
  Row pk = Find("pg_index", "indexrelid", OidOf(t_->PrimaryKey()->oid));
  EXPECT_EQ(I(pk["indrelid"]), t_->oid);
  EXPECT_TRUE(pk["indisprimary"].AsBool());
  EXPECT_TRUE(pk["indisunique"].AsBool());
  EXPECT_TRUE(pk["indisvalid"].AsBool());
  EXPECT_EQ(I(pk["indnatts"]), 1);
  Row uq = Find("pg_index", "indexrelid", OidOf(t_->indexes[1].oid));
  EXPECT_FALSE(uq["indisprimary"].AsBool());
  EXPECT_TRUE(uq["indisunique"].AsBool());

  Row pcon = Find("pg_constraint", "conname", NameValue("t_pkey"));
  EXPECT_EQ(S(pcon["contype"]), "p");
  EXPECT_EQ(I(pcon["conrelid"]), t_->oid);
  EXPECT_EQ(I(pcon["conindid"]), t_->PrimaryKey()->oid);
  EXPECT_TRUE(pcon["connoinherit"].AsBool());
  EXPECT_TRUE(pcon["conbin"].IsNull());
  Row ucon = Find("pg_constraint", "conname", NameValue("t_code_key"));
  EXPECT_EQ(S(ucon["contype"]), "u");
  EXPECT_EQ(I(ucon["conindid"]), t_->indexes[1].oid);

  // Key columns, options, operator classes and collations, as PostgreSQL 15 has them for
  // t_pkey (int4 id) and t_code_key (varchar code).
  auto text = [](const Value& v) { return FormatText(v, TextOptions{}); };
  EXPECT_EQ(text(pk["indkey"]), "1");
  EXPECT_EQ(text(pk["indoption"]), "0");
  EXPECT_EQ(text(pk["indclass"]), "1978");
  EXPECT_EQ(text(pk["indcollation"]), "0");
  EXPECT_EQ(text(uq["indkey"]), "3");
  EXPECT_EQ(text(uq["indclass"]), "3126");
  EXPECT_EQ(text(uq["indcollation"]), "100");
  EXPECT_EQ(text(pcon["conkey"]), "{1}");
  EXPECT_EQ(text(ucon["conkey"]), "{3}");
  EXPECT_TRUE(ucon["confkey"].IsNull());
}

TEST_F(SystemViewTest, NamespacesRolesDatabasesAndAccessMethods) {
  EXPECT_EQ(I(Find("pg_namespace", "nspname", NameValue("public"))["nspowner"]), kPgDatabaseOwner);
  EXPECT_EQ(I(Find("pg_namespace", "nspname", NameValue("pg_catalog"))["oid"]), storage::kPgCatalogNamespace);
  EXPECT_EQ(I(Find("pg_namespace", "nspname", NameValue("information_schema"))["nspowner"]), 10);

  Row postgres = Find("pg_roles", "rolname", NameValue("postgres"));
  EXPECT_EQ(I(postgres["oid"]), 10);
  EXPECT_TRUE(postgres["rolsuper"].AsBool());
  EXPECT_TRUE(postgres["rolcanlogin"].AsBool());
  EXPECT_EQ(S(postgres["rolpassword"]), "********");
  EXPECT_FALSE(Find("pg_roles", "rolname", NameValue("pg_database_owner"))["rolcanlogin"].AsBool());
  ASSERT_EQ(Rows("pg_user").size(), 1u);  // pg_database_owner cannot log in
  EXPECT_EQ(I(Rows("pg_user")[0]["usesysid"]), 10);

  Row db = Find("pg_database", "datname", NameValue("postgres"));
  EXPECT_EQ(I(db["oid"]), 5);
  EXPECT_EQ(I(db["encoding"]), 6);
  EXPECT_FALSE(db["datistemplate"].AsBool());
  EXPECT_TRUE(Find("pg_database", "datname", NameValue("template1"))["datistemplate"].AsBool());

  EXPECT_EQ(S(Find("pg_am", "oid", OidOf(403))["amname"]), "btree");
  EXPECT_EQ(S(Find("pg_am", "oid", OidOf(405))["amname"]), "hash");
  // initdb's one comment; farmdb has no COMMENT ON.
  ASSERT_EQ(Rows("pg_description").size(), 1u);
  EXPECT_EQ(S(Rows("pg_description")[0]["description"]), "standard public schema");
  EXPECT_EQ(I(Rows("pg_description")[0]["objoid"]), storage::kPublicNamespace);
  // Privileges as initdb leaves them (aclitem[]): public's, and the templates'.
  EXPECT_EQ(FormatText(Find("pg_namespace", "nspname", NameValue("public"))["nspacl"], TextOptions{}),
            "{pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}");
  EXPECT_TRUE(Find("pg_database", "datname", NameValue("postgres"))["datacl"].IsNull());
  EXPECT_EQ(FormatText(Find("pg_database", "datname", NameValue("template1"))["datacl"], TextOptions{}),
            "{=c/postgres,postgres=CTc/postgres}");
  EXPECT_EQ(Rows("pg_collation").size(), 3u);
}

class ConfiguredRolesTest : public SystemViewTest {
 protected:
  std::vector<storage::RoleDef> ConfigRoles() const override {
    return {{"postgres", true, true, ""}, {"alice", false, true, ""}, {"ops", true, true, ""}};
  }
};

// psql's \du reads pg_roles: the roles that can log in (farmdb.conf's) are there, with their
// superuser flag; the bootstrap superuser stays oid 10 and is not duplicated.
TEST_F(ConfiguredRolesTest, ConfigRolesAreCatalogRoles) {
  Row postgres = Find("pg_roles", "rolname", NameValue("postgres"));
  EXPECT_EQ(I(postgres["oid"]), 10);
  Row alice = Find("pg_roles", "rolname", NameValue("alice"));
  EXPECT_FALSE(alice["rolsuper"].AsBool());
  EXPECT_TRUE(alice["rolcanlogin"].AsBool());
  EXPECT_GE(I(alice["oid"]), 16384) << "user-created roles take oids from FirstNormalObjectId";
  EXPECT_TRUE(Find("pg_roles", "rolname", NameValue("ops"))["rolsuper"].AsBool());
  EXPECT_EQ(Rows("pg_user").size(), 3u);
}

TEST_F(SystemViewTest, PgTypeCoversEveryTypeAndItsArray) {
  std::map<int64_t, Row> by_oid;
  for (Row& r : Rows("pg_type")) by_oid[I(r["oid"])] = std::move(r);
  for (int t = 0; t <= static_cast<int>(TypeId::kAclitemArray); ++t) {
    const TypeInfo& info = Info(static_cast<TypeId>(t));
    ASSERT_TRUE(by_oid.contains(info.oid)) << info.name;
    Row& row = by_oid[info.oid];
    EXPECT_EQ(S(row["typname"]), info.name);
    EXPECT_EQ(I(row["typlen"]), info.typlen) << info.name;
    if (IsArray(info.id)) {
      EXPECT_EQ(I(row["typelem"]), Info(info.element).oid) << info.name;
      EXPECT_EQ(S(row["typcategory"]), "A") << info.name;
      // pgjdbc tells arrays by typinput = 'array_in' (int2vector and oidvector have their own).
      EXPECT_EQ(I(row["typinput"]) == 750, !IsVector(info.id)) << info.name;
    }
    int64_t array = I(row["typarray"]);
    if (array != 0) {
      ASSERT_TRUE(by_oid.contains(array)) << info.name;
      EXPECT_EQ(I(by_oid[array]["typelem"]), info.oid);
      EXPECT_EQ(S(by_oid[array]["typcategory"]), "A");
      EXPECT_EQ(S(by_oid[array]["typname"]), "_" + std::string(info.name));
    }
  }
  // Values PostgreSQL 15 has (pg_type of int4 and varchar).
  EXPECT_EQ(S(by_oid[23]["typcategory"]), "N");
  EXPECT_EQ(I(by_oid[23]["typarray"]), 1007);
  EXPECT_TRUE(by_oid[23]["typbyval"].AsBool());
  EXPECT_EQ(S(by_oid[1043]["typtype"]), "b");
  EXPECT_EQ(I(by_oid[1043]["typcollation"]), 100);
  EXPECT_EQ(I(by_oid[25]["typnamespace"]), 11);
}

TEST_F(SystemViewTest, PgTablesAndPgIndexesAsPostgres) {
  // PostgreSQL 15: SELECT * FROM pg_tables / pg_indexes WHERE schemaname = 'public'.
  std::vector<Row> tables;
  for (Row& r : Rows("pg_tables")) {
    if (S(r["schemaname"]) == "public") tables.push_back(std::move(r));
  }
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(S(tables[0]["tablename"]), "t");
  EXPECT_EQ(S(tables[0]["tableowner"]), "postgres");
  EXPECT_TRUE(tables[0]["tablespace"].IsNull());
  EXPECT_TRUE(tables[0]["hasindexes"].AsBool());
  EXPECT_FALSE(tables[1]["hasindexes"].AsBool());
  EXPECT_EQ(S(Find("pg_tables", "tablename", NameValue("pg_class"))["schemaname"]), "pg_catalog");

  std::vector<Row> indexes = Rows("pg_indexes");
  ASSERT_EQ(indexes.size(), 2u);
  EXPECT_EQ(S(indexes[0]["indexname"]), "t_pkey");
  EXPECT_EQ(S(indexes[0]["indexdef"]), "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)");
  EXPECT_EQ(S(indexes[1]["indexdef"]), "CREATE UNIQUE INDEX t_code_key ON public.t USING btree (code)");
}

TEST_F(SystemViewTest, InformationSchemaAsPostgres) {
  std::vector<Row> tables = Rows("tables", "information_schema");
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(S(tables[0]["table_name"]), "t");
  EXPECT_EQ(S(tables[0]["table_schema"]), "public");
  EXPECT_EQ(S(tables[0]["table_type"]), "BASE TABLE");
  EXPECT_EQ(S(tables[0]["is_insertable_into"]), "YES");

  bool saw_public = false;
  for (Row& r : Rows("schemata", "information_schema")) {
    if (S(r["schema_name"]) != "public") continue;
    saw_public = true;
    EXPECT_EQ(S(r["schema_owner"]), "pg_database_owner");
    EXPECT_EQ(S(r["catalog_name"]), "postgres");
  }
  EXPECT_TRUE(saw_public);

  // PostgreSQL 15's information_schema.columns for t.id, t.code and t.n.
  std::map<std::string, Row> cols;
  for (Row& r : Rows("columns", "information_schema")) {
    if (S(r["table_name"]) == "t") cols[S(r["column_name"])] = std::move(r);
  }
  ASSERT_EQ(cols.size(), 5u);
  EXPECT_EQ(S(cols["id"]["column_default"]), "nextval('t_id_seq'::regclass)");
  EXPECT_EQ(S(cols["id"]["is_nullable"]), "NO");
  EXPECT_EQ(S(cols["id"]["data_type"]), "integer");
  EXPECT_EQ(I(cols["id"]["numeric_precision"]), 32);
  EXPECT_EQ(I(cols["id"]["numeric_precision_radix"]), 2);
  EXPECT_EQ(I(cols["id"]["numeric_scale"]), 0);
  EXPECT_EQ(S(cols["id"]["udt_name"]), "int4");
  EXPECT_EQ(S(cols["code"]["data_type"]), "character varying");
  EXPECT_EQ(I(cols["code"]["character_maximum_length"]), 10);
  EXPECT_EQ(I(cols["code"]["character_octet_length"]), 40);
  EXPECT_EQ(S(cols["code"]["is_nullable"]), "YES");
  EXPECT_EQ(I(cols["n"]["numeric_precision"]), 10);
  EXPECT_EQ(I(cols["n"]["numeric_precision_radix"]), 10);
  EXPECT_EQ(I(cols["n"]["numeric_scale"]), 2);
  EXPECT_EQ(I(cols["created"]["datetime_precision"]), 6);
  EXPECT_EQ(I(cols["name"]["character_octet_length"]), 1073741824);
  EXPECT_EQ(I(cols["n"]["ordinal_position"]), 4);
}

TEST_F(SystemViewTest, CatalogFunctionsMatchPostgres) {
  SystemViewContext ctx = Context();
  // format_type as PostgreSQL 15 prints it.
  EXPECT_EQ(FormatType(1043, 14), "character varying(10)");
  EXPECT_EQ(FormatType(1042, -1), "bpchar");
  EXPECT_EQ(FormatType(1042, 5), "character(1)");
  EXPECT_EQ(FormatType(1700, 655366), "numeric(10,2)");
  EXPECT_EQ(FormatType(1184, 3), "timestamp(3) with time zone");
  EXPECT_EQ(FormatType(18, -1), "\"char\"");
  EXPECT_EQ(FormatType(999999, -1), "???");
  EXPECT_EQ(FormatType(0, -1), "-");
  EXPECT_EQ(FormatType(23, std::nullopt), "integer");

  Oid pkey = t_->PrimaryKey()->oid, code_key = t_->indexes[1].oid;
  EXPECT_EQ(PgGetIndexdef(ctx, pkey, 0, false), "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)");
  EXPECT_EQ(PgGetIndexdef(ctx, pkey, 0, true), "CREATE UNIQUE INDEX t_pkey ON t USING btree (id)");
  EXPECT_EQ(PgGetIndexdef(ctx, code_key, 1, false), "code");
  EXPECT_EQ(PgGetIndexdef(ctx, code_key, 2, false), "");
  EXPECT_EQ(PgGetIndexdef(ctx, t_->oid, 0, false), std::nullopt);
  EXPECT_EQ(PgGetConstraintdef(ctx, t_->constraints[0].oid, true), "PRIMARY KEY (id)");
  EXPECT_EQ(PgGetConstraintdef(ctx, t_->ConstraintOf(code_key)->oid, true), "UNIQUE (code)");

  EXPECT_TRUE(PgTableIsVisible(ctx, t_->oid));
  EXPECT_TRUE(PgTableIsVisible(ctx, pkey));
  std::vector<std::string> catalog_only = {"pg_catalog"};
  SystemViewContext hidden{*snapshot_, "postgres", "postgres", catalog_only, databases_};
  EXPECT_FALSE(PgTableIsVisible(hidden, t_->oid));
  EXPECT_EQ(PgGetIndexdef(hidden, pkey, 0, true), "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)");

  EXPECT_EQ(RegclassIn(ctx, "t"), t_->oid);
  EXPECT_EQ(RegclassIn(ctx, "T"), t_->oid);  // folded to lower case, as the parser does
  EXPECT_EQ(RegclassIn(ctx, "public.t"), t_->oid);
  EXPECT_EQ(RegclassIn(ctx, "\"t_id_seq\""), snapshot_->FindSequence(storage::kPublicNamespace, "t_id_seq")->oid);
  EXPECT_EQ(RegclassIn(ctx, "16385"), 16385u);
  EXPECT_EQ(RegclassIn(ctx, "nope").error().sqlstate, "42P01");
  EXPECT_EQ(RegclassIn(ctx, "nope").error().message, "relation \"nope\" does not exist");
  EXPECT_EQ(RegclassIn(ctx, "nosuch.t").error().sqlstate, "3F000");
  EXPECT_EQ(RegclassIn(hidden, "t").error().sqlstate, "42P01");
  EXPECT_EQ(RegclassOut(ctx, t_->oid), "t");
  EXPECT_EQ(RegclassOut(hidden, t_->oid), "public.t");
  EXPECT_EQ(RegclassOut(ctx, 999999), "999999");
  // System views resolve too: pg_catalog is searched first; information_schema only qualified.
  EXPECT_EQ(RegclassIn(ctx, "pg_class"), 1259u);
  EXPECT_EQ(RegclassIn(hidden, "pg_catalog.pg_type"), 1247u);
  EXPECT_EQ(RegclassIn(ctx, "information_schema.tables"), 13425u);
  EXPECT_EQ(RegclassIn(ctx, "tables").error().sqlstate, "42P01");
  EXPECT_EQ(RegclassOut(ctx, 1259), "pg_class");
  EXPECT_EQ(RegclassOut(ctx, 13425), "information_schema.tables");
  EXPECT_TRUE(PgTableIsVisible(ctx, 1259));
  EXPECT_FALSE(PgTableIsVisible(ctx, 13425));

  EXPECT_EQ(PgGetUserById(ctx, 10), "postgres");
  EXPECT_EQ(PgGetUserById(ctx, kPgDatabaseOwner), "pg_database_owner");
  EXPECT_EQ(PgGetUserById(ctx, 999), "unknown (OID=999)");
  EXPECT_EQ(QuoteIdent("t"), "t");
  EXPECT_EQ(QuoteIdent("Foo"), "\"Foo\"");
  EXPECT_EQ(QuoteIdent("select"), "\"select\"");
  EXPECT_EQ(QuoteIdent("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(QuoteIdent("_x1"), "_x1");
  EXPECT_EQ(PgEncodingToChar(6), "UTF8");
  EXPECT_EQ(CurrentSchema(ctx), "public");  // no schema "postgres"
  EXPECT_EQ(CurrentSchema(hidden), "pg_catalog");
  EXPECT_TRUE(PgRelationIsPublishable(ctx, t_->oid));
  EXPECT_FALSE(PgRelationIsPublishable(ctx, pkey));
}

// Catalog functions as the binder finds them (CatalogFunctions()) and Evaluate calls them, with
// the statement's catalog in ExecContext::db and without one.
TEST_F(SystemViewTest, CatalogBuiltinsWithAndWithoutCatalog) {
  SystemViewContext ctx = Context();
  auto find = [](std::string_view name, size_t nargs) -> const Builtin* {
    for (const Builtin& b : CatalogFunctions()) {
      if (b.name == name && b.args.size() == nargs) return &b;
    }
    return nullptr;
  };
  Settings settings = *Settings::Create(SessionOptions{});
  DatabaseAccess db;
  db.catalog = snapshot_;
  db.database = "postgres";
  db.user = "alice";
  db.search_path = search_path_;
  ExecContext exec{.params = {}, .settings = settings, .output = {}, .db = &db, .row = {}, .outer = {}};
  ExecContext no_catalog{.params = {}, .settings = settings, .output = {}, .row = {}, .outer = {}};

  BoundExpr call;
  call.kind = BoundKind::kBuiltin;
  call.type = TypeId::kText;
  call.builtin = find("pg_get_indexdef", 3);
  ASSERT_NE(call.builtin, nullptr);
  Value args[] = {OidOf(t_->PrimaryKey()->oid), Value::Int(TypeId::kInt4, 0), Value::Bool(true)};
  auto def = CallBuiltin(call, args, exec);
  ASSERT_TRUE(def.has_value());
  EXPECT_EQ(S(*def), "CREATE UNIQUE INDEX t_pkey ON t USING btree (id)");
  auto unwired = CallBuiltin(call, args, no_catalog);
  ASSERT_FALSE(unwired.has_value());
  EXPECT_EQ(unwired.error().sqlstate, "0A000");

  call.builtin = find("current_user", 0);
  ASSERT_NE(call.builtin, nullptr);
  auto user = CallBuiltin(call, {}, exec);
  ASSERT_TRUE(user.has_value());
  EXPECT_EQ(S(*user), "alice");

  // format_type is not strict: a NULL typmod prints the bare name.
  call.builtin = find("format_type", 2);
  ASSERT_NE(call.builtin, nullptr);
  Value no_typmod[] = {OidOf(1043), Value::Null(TypeId::kInt4)};
  auto bare = CallBuiltin(call, no_typmod, no_catalog);
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(S(*bare), "character varying");

  // 't'::regclass and c.oid::regclass::text with the catalog at hand; without it, numbers.
  TextOptions options;
  auto oid = ParseTextWithCatalog(TypeId::kRegclass, "public.t", options, &ctx);
  ASSERT_TRUE(oid.has_value());
  EXPECT_EQ(oid->type, TypeId::kRegclass);
  EXPECT_EQ(I(*oid), t_->oid);
  EXPECT_EQ(ParseTextWithCatalog(TypeId::kRegclass, "nope", options, &ctx).error().sqlstate, "42P01");
  EXPECT_EQ(ParseTextWithCatalog(TypeId::kRegclass, "t", options, nullptr).error().sqlstate, "0A000");
  auto from_text = CastWithCatalog(Str("t_pkey"), TypeId::kRegclass, options, &ctx);
  ASSERT_TRUE(from_text.has_value());
  EXPECT_EQ(I(*from_text), t_->PrimaryKey()->oid);
  auto text = CastWithCatalog(*oid, TypeId::kText, options, &ctx);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(S(*text), "t");
  auto as_name = CastWithCatalog(Value::Int(TypeId::kRegclass, 1259), TypeId::kName, options, &ctx);
  ASSERT_TRUE(as_name.has_value());
  EXPECT_EQ(as_name->type, TypeId::kName);
  EXPECT_EQ(S(*as_name), "pg_class");
  EXPECT_EQ(S(*CastWithCatalog(*oid, TypeId::kText, options, nullptr)), std::to_string(t_->oid));
  auto as_oid = CastWithCatalog(*oid, TypeId::kOid, options, &ctx);
  ASSERT_TRUE(as_oid.has_value());
  EXPECT_EQ(as_oid->type, TypeId::kOid);
  call.builtin = find("pg_table_is_visible", 1);
  ASSERT_NE(call.builtin, nullptr);
  Value missing[] = {OidOf(999999)};
  auto visible = CallBuiltin(call, missing, exec);
  ASSERT_TRUE(visible.has_value());
  EXPECT_TRUE(visible->IsNull());
}

// Through the session: what runs without the catalog in the ExecContext (constant SELECTs).
TEST_F(SystemViewTest, CatalogTypesOperatorsAndFunctionsInSql) {
  Run("SELECT 4294967295::oid::int4, '-1'::oid, 5 = 5::oid, 'integer'::regtype, 1043::regtype, "
      "'\"char\"'::regtype, 'ab'::\"char\", '\\101'::\"char\", 'pg_toast' ~ '^pg_', 'abc' !~ 'b', 'ABC' ~* 'abc', "
      "quote_ident('Foo'), quote_ident('select'), pg_encoding_to_char(6), "
      "'x' ~ '^(x)$' COLLATE pg_catalog.default, format_type(1043, 14), format_type(1042, NULL), "
      "format_type(NULL, 1) IS NULL");
  ASSERT_EQ(sink_.rows.size(), 1u);
  // PostgreSQL 15's output for the same SELECT.
  std::vector<std::string> expected = {"-1", "4294967295", "t", "integer", "character varying", "\"char\"", "a",
                                       "A", "t", "f", "t", "\"Foo\"", "\"select\"", "UTF8", "t",
                                       "character varying(10)", "character", "t"};
  EXPECT_EQ(sink_.rows[0], expected);
}

TEST_F(SystemViewTest, CatalogTypeErrorsAsPostgres) {
  struct Case {
    const char* sql;
    const char* sqlstate;
    const char* message;
  } cases[] = {
      {"SELECT (-1)::int8::oid", "22003", "OID out of range"},
      {"SELECT '4294967296'::oid", "22003", "value \"4294967296\" is out of range for type oid"},
      {"SELECT 'x'::oid", "22P02", "invalid input syntax for type oid: \"x\""},
      {"SELECT 'nosuch'::regtype", "42704", "type \"nosuch\" does not exist"},
      {"SELECT 'x'::pg_node_tree", "0A000", "cannot accept a value of type pg_node_tree"},
      {"SELECT 'a' ~ '('", "2201B", "invalid regular expression: parentheses () not balanced"},
  };
  for (const Case& c : cases) {
    Error e = RunError(c.sql);
    EXPECT_EQ(e.sqlstate, c.sqlstate) << c.sql;
    EXPECT_EQ(e.message, c.message) << c.sql;
  }
}

}  // namespace
}  // namespace farmdb::sql
