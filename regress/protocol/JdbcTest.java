// JdbcTest: end-to-end checks of the PostgreSQL protocol through pgjdbc, run by
// regress/protocol/harness.py against farmdb or a scratch PostgreSQL 15 (the oracle).
//
// The server's address and roles come from the harness's E2E_* environment variables. The
// driver's protocol trace (java.util.logging at FINEST) is captured so the test can assert
// what went over the wire: named server-side statements, binary result columns and
// PortalSuspended, not only that values came back right. Exits 1 if any check failed.

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

public class JdbcTest {
  private static int checks = 0;
  private static int failures = 0;
  private static boolean testFailed = false;

  private static final String URL =
      "jdbc:postgresql://" + env("E2E_HOST") + ":" + env("E2E_PORT") + "/";

  /** Collects the driver's protocol trace ("FE=> Parse(...)", " <=BE PortalSuspended"). */
  private static final class WireTrace extends Handler {
    final List<String> lines = new ArrayList<>();

    @Override
    public synchronized void publish(LogRecord record) {
      String message = record.getMessage();
      Object[] params = record.getParameters();
      if (params != null) {
        message = java.text.MessageFormat.format(message.replace("'", "''"), params);
      }
      lines.add(message);
    }

    synchronized boolean contains(String fragment) {
      return lines.stream().anyMatch(l -> l.contains(fragment));
    }

    synchronized boolean any(java.util.function.Predicate<String> test) {
      return lines.stream().anyMatch(test);
    }

    synchronized void clear() {
      lines.clear();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  private static final WireTrace trace = new WireTrace();

  private static String env(String name) {
    String value = System.getenv(name);
    if (value == null) {
      System.err.println("JdbcTest: environment variable " + name + " is not set (run via harness.py)");
      System.exit(2);
    }
    return value;
  }

  private static boolean check(boolean ok, String what) {
    checks++;
    if (!ok) {
      failures++;
      testFailed = true;
      System.out.println("    FAIL: " + what);
    }
    return ok;
  }

  private static Connection connect(String user, String password, String database,
      String... extra) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    if (password != null) props.setProperty("password", password);
    props.setProperty("connectTimeout", "20");
    props.setProperty("socketTimeout", "90");
    props.setProperty("ApplicationName", "JdbcTest");
    for (int i = 0; i + 1 < extra.length; i += 2) props.setProperty(extra[i], extra[i + 1]);
    return DriverManager.getConnection(URL + database, props);
  }

  private static Connection connectTrust(String... extra) throws SQLException {
    return connect(env("E2E_TRUST_USER"), null, "postgres", extra);
  }

  private static String sqlState(ThrowingRunnable action) {
    try {
      action.run();
      return "(no error)";
    } catch (SQLException e) {
      return e.getSQLState() + " " + e.getMessage();
    } catch (Exception e) {
      return "(" + e + ")";
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  static void testAuth() throws Exception {
    String[][] good = {
        {env("E2E_TRUST_USER"), null},
        {env("E2E_PASSWORD_USER"), env("E2E_PASSWORD_PASSWORD")},
        {env("E2E_MD5_USER"), env("E2E_MD5_PASSWORD")},
        {env("E2E_SCRAM_USER"), env("E2E_SCRAM_PASSWORD")},
    };
    for (String[] c : good) {
      try (Connection conn = connect(c[0], c[1], "postgres");
          Statement st = conn.createStatement();
          ResultSet rs = st.executeQuery("SELECT 1")) {
        String who = conn.unwrap(org.postgresql.PGConnection.class)
            .getParameterStatus("session_authorization");
        check(c[0].equals(who), "session_authorization for " + c[0] + ": " + who);
        check(rs.next() && rs.getInt(1) == 1, "query as " + c[0]);
      } catch (SQLException e) {
        check(false, "connect as " + c[0] + ": " + e.getSQLState() + " " + e.getMessage());
      }
    }
    for (int i = 1; i < good.length; i++) {
      String user = good[i][0];
      String got = sqlState(() -> connect(user, "wrong-password", "postgres").close());
      check(got.startsWith("28P01 "), "wrong password for " + user + " -> 28P01, got " + got);
    }
    String rejected = sqlState(
        () -> connect(env("E2E_REJECT_USER"), env("E2E_REJECT_PASSWORD"), "postgres").close());
    check(rejected.startsWith("28000 "), "reject rule -> 28000, got " + rejected);
    String noDb = sqlState(() -> connect(env("E2E_TRUST_USER"), null, "no_such_db").close());
    check(noDb.startsWith("3D000 ") && noDb.contains("database \"no_such_db\" does not exist"),
        "unknown database -> 3D000, got " + noDb);
  }

  /** Each setter round-trips through SELECT ? and comes back with the right type and value. */
  /**
   * Wire format of each result column, 'B' binary or 'T' text. pgjdbc keeps it in the result
   * set's Field array, which it does not expose; reflection reads it (classpath, no modules).
   */
  static String resultFormats(ResultSet rs) throws Exception {
    java.lang.reflect.Field fieldsMember =
        org.postgresql.jdbc.PgResultSet.class.getDeclaredField("fields");
    fieldsMember.setAccessible(true);
    org.postgresql.core.Field[] fields =
        (org.postgresql.core.Field[]) fieldsMember.get(rs.unwrap(org.postgresql.jdbc.PgResultSet.class));
    StringBuilder out = new StringBuilder();
    for (org.postgresql.core.Field f : fields) {
      out.append(f.getFormat() == org.postgresql.core.Field.BINARY_FORMAT ? 'B' : 'T');
    }
    return out.toString();
  }

  // With binary transfer pgjdbc asks for int4, int8, numeric, bytea, float8, int2, date and
  // timestamp results in binary; text and bool stay text.
  static final String SCALAR_BINARY_FORMATS = "BBBTTBBB";
  static final String DATETIME_BINARY_FORMATS = "BB";

  interface Binder {
    void bind(PreparedStatement ps, int round) throws SQLException;
  }

  interface RowCheck {
    void check(ResultSet rs, int round, String label) throws SQLException;
  }

  /**
   * Executes one prepared statement four times (pgjdbc switches to a named statement and binary
   * results after prepareThreshold executions). Returns the result column formats per round; an
   * error fails the round's check without hiding the others.
   */
  static List<String> roundTrips(Connection conn, String label, String sql, Binder binder,
      RowCheck rowCheck) throws Exception {
    List<String> formats = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      for (int round = 0; round < 4; round++) {
        String r = label + " round " + round + ": ";
        binder.bind(ps, round);
        try (ResultSet rs = ps.executeQuery()) {
          formats.add(resultFormats(rs));
          if (!check(rs.next(), r + "a row")) continue;
          rowCheck.check(rs, round, r);
          check(!rs.next(), r + "one row only");
        } catch (SQLException e) {
          check(false, r + sql + ": " + e.getSQLState() + " " + e.getMessage());
        }
      }
      check(ps.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare(),
          label + ": statement became server-prepared");
    }
    return formats;
  }

  /** Result column formats of the scalar and the date/time statements, per round. */
  record Formats(List<String> scalar, List<String> datetime) {}

  /** Each setter round-trips through SELECT ? and comes back with the right type and value. */
  static Formats testParameterTypes(Connection conn, String label) throws Exception {
    BigDecimal decimal = new BigDecimal("-12345678901234567890.0123");
    byte[] bytes = {0, 1, (byte) 0xff, 0x7f};
    List<String> scalar = roundTrips(conn, label,
        "SELECT ?::int4, ?::int8, ?::numeric, ?::text, ?::bool, ?::bytea, ?::float8, ?::int2",
        (ps, round) -> {
          ps.setInt(1, Integer.MIN_VALUE + round);
          ps.setLong(2, Long.MAX_VALUE - round);
          ps.setBigDecimal(3, decimal);
          ps.setString(4, "h\u00e9llo '" + round + "'");
          ps.setBoolean(5, round % 2 == 0);
          ps.setBytes(6, bytes);
          ps.setDouble(7, -2.5);
          ps.setShort(8, (short) -32768);
        },
        (rs, round, r) -> {
          check(rs.getInt(1) == Integer.MIN_VALUE + round, r + "setInt " + rs.getInt(1));
          check(rs.getLong(2) == Long.MAX_VALUE - round, r + "setLong " + rs.getLong(2));
          check(decimal.equals(rs.getBigDecimal(3)), r + "setBigDecimal " + rs.getBigDecimal(3));
          check(("h\u00e9llo '" + round + "'").equals(rs.getString(4)), r + "setString " + rs.getString(4));
          check(rs.getBoolean(5) == (round % 2 == 0), r + "setBoolean");
          check(Arrays.equals(bytes, rs.getBytes(6)), r + "setBytes " + Arrays.toString(rs.getBytes(6)));
          check(rs.getDouble(7) == -2.5, r + "setDouble " + rs.getDouble(7));
          check(rs.getShort(8) == -32768, r + "setShort " + rs.getShort(8));
        });
    // pgjdbc sends dates and timestamps as untyped text with a zone ("2024-02-29 +00").
    Date date = Date.valueOf("2024-02-29");
    Timestamp timestamp = Timestamp.valueOf("2024-02-29 12:34:56.789");
    List<String> datetime = roundTrips(conn, label, "SELECT ?::date, ?::timestamp",
        (ps, round) -> {
          ps.setDate(1, date);
          ps.setTimestamp(2, timestamp);
        },
        (rs, round, r) -> {
          check(date.equals(rs.getDate(1)), r + "setDate " + rs.getDate(1));
          check(timestamp.equals(rs.getTimestamp(2)), r + "setTimestamp " + rs.getTimestamp(2));
        });
    // Untyped parameters take the setter's type: int4, int8, varchar, bool.
    try (PreparedStatement ps = conn.prepareStatement("SELECT ?, ?, ?, ?")) {
      ps.setInt(1, 7);
      ps.setLong(2, 8L);
      ps.setString(3, "nine");
      ps.setBoolean(4, true);
      try (ResultSet rs = ps.executeQuery()) {
        String types = rs.getMetaData().getColumnTypeName(1) + "," + rs.getMetaData().getColumnTypeName(2)
            + "," + rs.getMetaData().getColumnTypeName(3) + "," + rs.getMetaData().getColumnTypeName(4);
        check(types.equals("int4,int8,varchar,bool"), label + ": inferred types " + types);
        check(rs.next() && rs.getInt(1) == 7 && rs.getLong(2) == 8 && rs.getString(3).equals("nine")
            && rs.getBoolean(4), label + ": untyped values");
      }
      ps.setNull(1, java.sql.Types.INTEGER);
      ps.setLong(2, 1L);
      ps.setNull(3, java.sql.Types.VARCHAR);
      ps.setBoolean(4, false);
      try (ResultSet rs = ps.executeQuery()) {
        check(rs.next() && rs.getObject(1) == null && rs.getObject(3) == null, label + ": NULLs");
      }
    }
    return new Formats(scalar, datetime);
  }

  static void testPreparedStatements() throws Exception {
    // Default threshold (5): the first executions use the unnamed statement and text results.
    trace.clear();
    try (Connection conn = connectTrust()) {
      Formats formats = testParameterTypes(conn, "threshold 5");
      check(formats.scalar().get(0).equals("TTTTTTTT"),
          "threshold 5: first execution all text, got " + formats.scalar());
    }
    // prepareThreshold=1: named from the first execution; binary results once described.
    trace.clear();
    try (Connection conn = connectTrust("prepareThreshold", "1")) {
      Formats formats = testParameterTypes(conn, "threshold 1");
      check(formats.scalar().get(formats.scalar().size() - 1).equals(SCALAR_BINARY_FORMATS),
          "threshold 1: binary results once the named statement is described, got "
              + formats.scalar());
    }
    check(trace.contains("Parse(stmt=S_"), "a named server-side statement (Parse stmt=S_n) was sent");
    check(trace.contains("Bind(stmt=S_"), "Bind to the named statement");
    // prepareThreshold=-1 forces server-side prepare and binary transfer from the start.
    trace.clear();
    try (Connection conn = connectTrust("prepareThreshold", "-1")) {
      Formats formats = testParameterTypes(conn, "threshold -1 (force binary)");
      check(formats.scalar().size() == 4
              && formats.scalar().stream().allMatch(SCALAR_BINARY_FORMATS::equals),
          "forced binary: binary results from the first execution, got " + formats.scalar());
      check(formats.datetime().size() == 4
              && formats.datetime().stream().allMatch(DATETIME_BINARY_FORMATS::equals),
          "forced binary: binary date/timestamp results, got " + formats.datetime());
    }
  }

  static void testFetchSize() throws Exception {
    try (Connection conn = connectTrust()) {
      conn.setAutoCommit(false);
      trace.clear();
      try (PreparedStatement ps = conn.prepareStatement("SELECT 'fetched' AS a, 42 AS b")) {
        ps.setFetchSize(1);
        try (ResultSet rs = ps.executeQuery()) {
          check(rs.next() && rs.getString(1).equals("fetched") && rs.getInt(2) == 42,
              "row through a portal with a row limit");
          check(!rs.next(), "no second row");
        }
      }
      // Execute(max_rows=1) on a one-row portal suspends it; the driver then fetches again.
      check(trace.contains("PortalSuspended"), "server sent PortalSuspended for the row limit");
      check(trace.any(l -> l.contains("Execute(portal=C_") && l.contains("limit=1")),
          "Execute on a named portal with limit 1");
      conn.commit();
      conn.rollback();
    }
  }

  static void testErrors() throws Exception {
    try (Connection conn = connectTrust(); Statement st = conn.createStatement()) {
      String syntax = sqlState(() -> st.executeQuery("SELEC 1"));
      check(syntax.startsWith("42601 "), "syntax error -> 42601, got " + syntax);
      String div = sqlState(() -> st.executeQuery("SELECT 1/0"));
      check(div.startsWith("22012 ") && div.contains("division by zero"), "1/0 -> 22012, got " + div);
      String table = sqlState(() -> st.executeQuery("SELECT * FROM no_such_table"));
      check(table.startsWith("42P01 "), "missing table -> 42P01, got " + table);
      try (PreparedStatement ps = conn.prepareStatement("SELECT 10 / ?::int4")) {
        ps.setInt(1, 0);
        String prepared = sqlState(() -> ps.executeQuery());
        check(prepared.startsWith("22012 "), "prepared 10/0 -> 22012, got " + prepared);
        ps.setInt(1, 5);
        try (ResultSet rs = ps.executeQuery()) {
          check(rs.next() && rs.getInt(1) == 2, "same prepared statement works after an error");
        }
      }
      conn.setAutoCommit(false);
      String first = sqlState(() -> st.executeQuery("SELECT 1/0"));
      String aborted = sqlState(() -> st.executeQuery("SELECT 1"));
      check(first.startsWith("22012 ") && aborted.startsWith("25P02 "),
          "failed transaction block -> 25P02, got " + aborted);
      conn.rollback();
      try (ResultSet rs = st.executeQuery("SELECT 'after rollback'")) {
        check(rs.next(), "query after rollback");
      }
    }
  }

  static void testCancel() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection conn = connectTrust(); Statement st = conn.createStatement()) {
      Future<String> sleeping = pool.submit(() -> sqlState(() -> st.executeQuery("SELECT pg_sleep(30)")));
      // A cancel that lands before the query runs is ignored (as in PostgreSQL): resend until
      // the query ends. Only the outcome is asserted.
      long start = System.nanoTime();
      long deadline = start + TimeUnit.SECONDS.toNanos(60);
      int sends = 0;
      Thread.sleep(200);
      while (!sleeping.isDone() && System.nanoTime() < deadline) {
        st.cancel();
        sends++;
        try {
          sleeping.get(2, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          // still running: cancel again
        }
      }
      // Information only, never asserted: how many cancel requests it took and how long.
      System.out.println("    cancel: " + sends + " request(s), "
          + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
      if (check(sleeping.isDone(), "pg_sleep(30) ended after Statement.cancel()")) {
        String got = sleeping.get();
        check(got.startsWith("57014 "), "canceled -> 57014, got " + got);
      }
      try (ResultSet rs = st.executeQuery("SELECT 'alive'")) {
        check(rs.next() && rs.getString(1).equals("alive"), "connection usable after cancel");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static void testMetaData() throws Exception {
    try (Connection conn = connectTrust()) {
      DatabaseMetaData md = conn.getMetaData();
      String version = md.getDatabaseProductVersion();
      check(version.startsWith("15"), "getDatabaseProductVersion " + version);
      check(md.getDatabaseMajorVersion() == 15, "getDatabaseMajorVersion " + md.getDatabaseMajorVersion());
      check(md.getDatabaseProductName().equals("PostgreSQL"), "product name " + md.getDatabaseProductName());
      try (Statement st = conn.createStatement()) {
        st.execute("SET application_name = 'jdbc_renamed'");
        try (ResultSet rs = st.executeQuery("SELECT current_setting('application_name')")) {
          check(rs.next() && rs.getString(1).equals("jdbc_renamed"), "SET then current_setting");
        }
        // The driver sets these in its startup packet; the server must honour them.
        try (ResultSet rs = st.executeQuery("SHOW DateStyle")) {
          check(rs.next() && rs.getString(1).startsWith("ISO"), "DateStyle from startup");
        }
        try (ResultSet rs = st.executeQuery("SHOW client_encoding")) {
          check(rs.next() && rs.getString(1).equals("UTF8"), "client_encoding from startup");
        }
        // Catalog types the driver knows without a pg_type lookup: oid (BIGINT) and "char".
        try (ResultSet rs = st.executeQuery("SELECT 4294967295::oid, 'r'::\"char\", 'pg_toast' ~ '^pg_'")) {
          java.sql.ResultSetMetaData m = rs.getMetaData();
          check(rs.next() && rs.getLong(1) == 4294967295L && rs.getString(2).equals("r") && rs.getBoolean(3),
              "oid, \"char\" and ~ values");
          check(m.getColumnTypeName(1).equals("oid") && m.getColumnType(1) == java.sql.Types.BIGINT,
              "oid column " + m.getColumnTypeName(1) + " " + m.getColumnType(1));
          check(m.getColumnTypeName(2).equals("char") && m.getColumnType(2) == java.sql.Types.CHAR,
              "\"char\" column " + m.getColumnTypeName(2) + " " + m.getColumnType(2));
        }
        // DatabaseMetaData.getTables: the driver's pg_namespace/pg_class/pg_description query
        // (regress/protocol/catalog_queries/pgjdbc_getTables.sql) end to end.
        st.execute("CREATE TABLE jdbc_meta_b (a int)");
        st.execute("CREATE TABLE jdbc_meta_a (id serial PRIMARY KEY)");
        try (ResultSet rs = md.getTables(null, "public", "jdbc_meta%", new String[] {"TABLE"})) {
          StringBuilder got = new StringBuilder();
          while (rs.next()) {
            got.append(rs.getString("TABLE_SCHEM")).append('.').append(rs.getString("TABLE_NAME")).append(':')
                .append(rs.getString("TABLE_TYPE")).append(rs.getString("REMARKS") == null ? "" : "+remarks").append(' ');
          }
          check(got.toString().equals("public.jdbc_meta_a:TABLE public.jdbc_meta_b:TABLE "), "getTables " + got);
        } finally {
          st.execute("DROP TABLE jdbc_meta_a, jdbc_meta_b");
        }
      }
    }
  }

  /** One result set as "a|b|c" lines of the named columns. */
  private static String rows(ResultSet rs, String... columns) throws SQLException {
    StringBuilder out = new StringBuilder();
    while (rs.next()) {
      for (int i = 0; i < columns.length; i++) {
        out.append(i == 0 ? "" : "|").append(rs.getString(columns[i]));
      }
      out.append('\n');
    }
    return out.toString();
  }

  // DatabaseMetaData.getColumns/getPrimaryKeys/getIndexInfo and ResultSetMetaData, whose
  // queries need window functions, set-returning functions, record fields, int2vector
  // subscripts and the pg_type lookups (regress/protocol/catalog_queries/pgjdbc_*.sql). The
  // expected values are PostgreSQL 15's.
  static void testCatalogMetaData() throws Exception {
    try (Connection conn = connectTrust()) {
      DatabaseMetaData md = conn.getMetaData();
      try (Statement st = conn.createStatement()) {
        st.execute("CREATE TABLE jdbc_cols (id serial PRIMARY KEY, name text NOT NULL DEFAULT 'x', "
            + "code varchar(10) UNIQUE, n numeric(10,2), big bigserial, at timestamptz, r regclass)");
        st.execute("CREATE INDEX jdbc_cols_multi ON jdbc_cols (n DESC, name)");
        st.execute("CREATE TABLE jdbc_pk2 (a int, b int, c int, PRIMARY KEY (b, a))");
        try {
          try (ResultSet rs = md.getColumns(null, "public", "jdbc_cols", "%")) {
            String got = rows(rs, "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE",
                "COLUMN_DEF", "ORDINAL_POSITION", "IS_NULLABLE", "IS_AUTOINCREMENT");
            check(got.equals("id|4|serial|10|0|0|nextval('jdbc_cols_id_seq'::regclass)|1|NO|YES\n"
                + "name|12|text|2147483647|0|0|'x'::text|2|NO|NO\n"
                + "code|12|varchar|10|0|1|null|3|YES|NO\n"
                + "n|2|numeric|10|2|1|null|4|YES|NO\n"
                + "big|-5|bigserial|19|0|0|nextval('jdbc_cols_big_seq'::regclass)|5|NO|YES\n"
                + "at|93|timestamptz|35|6|1|null|6|YES|NO\n"
                + "r|1111|regclass|2147483647|0|1|null|7|YES|NO\n"), "getColumns\n" + got);
          }
          try (ResultSet rs = md.getColumns(null, "public", "jdbc_cols", "c%")) {
            String got = rows(rs, "COLUMN_NAME", "ORDINAL_POSITION");
            check(got.equals("code|3\n"), "getColumns with a column pattern\n" + got);
          }
          try (ResultSet rs = md.getPrimaryKeys(null, "public", "jdbc_cols")) {
            String got = rows(rs, "TABLE_SCHEM", "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
            check(got.equals("public|jdbc_cols|id|1|jdbc_cols_pkey\n"), "getPrimaryKeys\n" + got);
          }
          try (ResultSet rs = md.getPrimaryKeys(null, "public", "jdbc_pk2")) {
            String got = rows(rs, "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
            check(got.equals("b|1|jdbc_pk2_pkey\na|2|jdbc_pk2_pkey\n"), "getPrimaryKeys of a two-column key\n" + got);
          }
          try (ResultSet rs = md.getIndexInfo(null, "public", "jdbc_cols", false, false)) {
            String got = rows(rs, "NON_UNIQUE", "INDEX_NAME", "TYPE", "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC",
                "FILTER_CONDITION");
            check(got.equals("f|jdbc_cols_code_key|3|1|code|A|null\n"
                + "f|jdbc_cols_pkey|3|1|id|A|null\n"
                + "t|jdbc_cols_multi|3|1|n|D|null\n"
                + "t|jdbc_cols_multi|3|2|name|A|null\n"), "getIndexInfo\n" + got);
          }
          try (ResultSet rs = md.getIndexInfo(null, "public", "jdbc_cols", true, false)) {
            String got = rows(rs, "INDEX_NAME");
            check(got.equals("jdbc_cols_code_key\njdbc_cols_pkey\n"), "getIndexInfo unique only\n" + got);
          }
          // ResultSetMetaData of a prepared SELECT: nullability and serial columns come from the
          // driver's pg_attribute query, type names of non-builtin OIDs from pg_type.
          try (PreparedStatement ps = conn.prepareStatement("SELECT id, name, code, big, r, 'jdbc_cols'::regclass FROM jdbc_cols")) {
            java.sql.ResultSetMetaData m = ps.getMetaData();
            StringBuilder got = new StringBuilder();
            for (int i = 1; i <= m.getColumnCount(); i++) {
              got.append(m.getColumnName(i)).append(':').append(m.getColumnTypeName(i)).append(':')
                  .append(m.isNullable(i)).append(':').append(m.isAutoIncrement(i)).append(' ');
            }
            check(got.toString().equals("id:serial:0:true name:text:0:false code:varchar:1:false "
                + "big:bigserial:0:true r:regclass:1:false regclass:regclass:2:false "), "ResultSetMetaData " + got);
          }
        } finally {
          st.execute("DROP TABLE jdbc_cols, jdbc_pk2");
        }
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Logger wire = Logger.getLogger("org.postgresql");
    wire.setLevel(Level.FINEST);
    wire.setUseParentHandlers(false);
    trace.setLevel(Level.FINEST);
    wire.addHandler(trace);

    String[] names = {"auth", "prepared_statements", "fetch_size", "errors", "cancel", "metadata",
        "catalog_metadata"};
    ThrowingRunnable[] tests = {JdbcTest::testAuth, JdbcTest::testPreparedStatements,
        JdbcTest::testFetchSize, JdbcTest::testErrors, JdbcTest::testCancel, JdbcTest::testMetaData,
        JdbcTest::testCatalogMetaData};
    int failedTests = 0;
    for (int i = 0; i < tests.length; i++) {
      System.out.println("jdbc " + names[i]);
      testFailed = false;
      try {
        tests[i].run();
      } catch (Exception e) {
        check(false, "unexpected exception: " + e);
        e.printStackTrace(System.out);
      }
      System.out.println("jdbc " + names[i] + ": " + (testFailed ? "FAILED" : "ok"));
      if (testFailed) failedTests++;
    }
    System.out.println("JdbcTest: " + checks + " checks, " + failures + " failed, " + failedTests
        + " of " + tests.length + " tests failed");
    System.exit(failures == 0 ? 0 : 1);
  }
}
