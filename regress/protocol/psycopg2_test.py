#!/usr/bin/python3
"""End-to-end checks through psycopg2 (libpq, simple protocol with client-side parameter
interpolation), run by regress/protocol/harness.py against farmdb or PostgreSQL 15.

The server's address and roles come from the harness's E2E_* environment variables. Exits 1 if
any check failed.
"""

import datetime
import decimal
import io
import os
import sys
import threading
import time

import psycopg2
import psycopg2.errors
import psycopg2.extensions as ext


class Checker:
    def __init__(self):
        self.checks = 0
        self.failures = 0
        self.test_failed = False

    def __call__(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures += 1
            self.test_failed = True
            print(f"    FAIL: {what}", flush=True)
        return ok


check = Checker()
ENV = os.environ


def Connect(user, password=None, dbname="postgres", **kw):
    return psycopg2.connect(host=ENV["E2E_HOST"], port=ENV["E2E_PORT"], dbname=dbname, user=user,
                            password=password, connect_timeout=20,
                            application_name="psycopg2_test", **kw)


def ConnectTrust(**kw):
    return Connect(ENV["E2E_TRUST_USER"], **kw)


def ConnectError(*args, **kw):
    try:
        Connect(*args, **kw).close()
    except psycopg2.OperationalError as e:
        return str(e)
    return "(connected)"


def TestAuth():
    for prefix in ("TRUST", "PASSWORD", "MD5", "SCRAM"):
        user, password = ENV[f"E2E_{prefix}_USER"], ENV[f"E2E_{prefix}_PASSWORD"] or None
        try:
            conn = Connect(user, password)
            who = conn.info.parameter_status("session_authorization")
            check(who == user, f"session_authorization for {user}: {who!r}")
            with conn.cursor() as cur:
                cur.execute("SELECT 1")
                check(cur.fetchone() == (1,), f"query as {user}")
            conn.close()
        except psycopg2.Error as e:
            check(False, f"connect as {user} ({prefix}): {e}")
        if prefix != "TRUST":
            error = ConnectError(user, "wrong-password")
            check(f'password authentication failed for user "{user}"' in error,
                  f"wrong password for {user}: {error!r}")
    error = ConnectError(ENV["E2E_REJECT_USER"], ENV["E2E_REJECT_PASSWORD"])
    check("pg_hba.conf rejects connection" in error, f"reject rule: {error!r}")
    error = ConnectError(ENV["E2E_TRUST_USER"], dbname="no_such_db")
    check('database "no_such_db" does not exist' in error, f"unknown database: {error!r}")


ROUND_TRIPS = [
    # (SQL with a parameter, the Python value, the expected Python result). CAST rather than ::
    # where psycopg2 interpolates a negative number: "-32768::int2" would be -(32768::int2).
    ("SELECT %s", True, True),
    ("SELECT %s", False, False),
    ("SELECT CAST(%s AS int2)", -32768, -32768),
    ("SELECT %s::int4", 2147483647, 2147483647),
    ("SELECT CAST(%s AS int8)", -9223372036854775808, -9223372036854775808),
    ("SELECT %s::float4", 1.5, 1.5),
    ("SELECT %s::float8", -2.25, -2.25),
    ("SELECT %s::float8", float("inf"), float("inf")),
    ("SELECT %s", decimal.Decimal("-12345678901234567890.0123"),
     decimal.Decimal("-12345678901234567890.0123")),
    ("SELECT %s::numeric * 2", decimal.Decimal("0.05"), decimal.Decimal("0.10")),
    ("SELECT %s", "h\u00e9llo 'quoted' \\ backslash", "h\u00e9llo 'quoted' \\ backslash"),
    ("SELECT %s::varchar", "abc", "abc"),
    ("SELECT %s", psycopg2.Binary(b"\x00\x01\xff'\\"), b"\x00\x01\xff'\\"),
    ("SELECT %s", datetime.date(2024, 2, 29), datetime.date(2024, 2, 29)),
    ("SELECT %s", datetime.datetime(2024, 2, 29, 12, 34, 56, 789000),
     datetime.datetime(2024, 2, 29, 12, 34, 56, 789000)),
    ("SELECT %s::int4 IS NULL", None, True),
]


def TestParameters():
    with ConnectTrust() as conn, conn.cursor() as cur:
        for sql, value, want in ROUND_TRIPS:
            try:
                cur.execute(sql, (value,))
                got = cur.fetchone()[0]
                if isinstance(got, memoryview):
                    got = bytes(got)
                check(got == want and type(got) is type(want),
                      f"{sql} with {value!r}: got {got!r} ({type(got).__name__})")
            except psycopg2.Error as e:
                check(False, f"{sql} with {value!r}: {e.pgcode} {e}")
                conn.rollback()
        cur.execute("SELECT %(a)s::int4 + %(b)s::int4 AS total, %(a)s::text AS a_text",
                    {"a": 40, "b": 2})
        check(cur.fetchone() == (42, "40"), "named parameters")
        check([d.name for d in cur.description] == ["total", "a_text"], "column names")
        check([d.type_code for d in cur.description] == [23, 25], "column type oids")
    conn.close()


def TestErrors():
    conn = ConnectTrust()  # no `with conn`: since psycopg2 2.9 it opens a block even in autocommit
    conn.autocommit = True
    cur = conn.cursor()
    for sql, pgcode, error_class in [
            ("SELECT 1/0", "22012", psycopg2.errors.DivisionByZero),
            ("SELEC 1", "42601", psycopg2.errors.SyntaxError),
            ("SELECT * FROM no_such_table", "42P01", psycopg2.errors.UndefinedTable),
            ("SELECT 'x'::int4", "22P02", psycopg2.errors.InvalidTextRepresentation)]:
        try:
            cur.execute(sql)
            check(False, f"{sql}: no error")
        except psycopg2.Error as e:
            check(e.pgcode == pgcode and isinstance(e, error_class),
                  f"{sql}: pgcode {e.pgcode} {type(e).__name__}, want {pgcode}")
            check(e.diag.severity_nonlocalized == "ERROR", f"{sql}: severity")
    cur.execute("SELECT 'alive'")
    check(cur.fetchone() == ("alive",), "session survives errors")
    conn.close()


def TestCancel():
    conn = ConnectTrust()
    conn.autocommit = True
    outcome = {}

    def Sleep():
        try:
            with conn.cursor() as cur:
                cur.execute("SELECT pg_sleep(30)")
            outcome["error"] = None
        except psycopg2.Error as e:
            outcome["error"] = e

    thread = threading.Thread(target=Sleep)
    thread.start()
    # A cancel landing before the query runs is ignored (as in PostgreSQL): resend until the
    # query ends. Only the outcome is asserted, not how long it took.
    time.sleep(0.2)
    deadline = time.time() + 60
    while thread.is_alive() and time.time() < deadline:
        conn.cancel()
        thread.join(2)
    if check(not thread.is_alive(), "pg_sleep(30) ended after conn.cancel()"):
        error = outcome.get("error")
        check(isinstance(error, psycopg2.errors.QueryCanceled) and error.pgcode == "57014",
              f"QueryCanceled 57014, got {error!r}")
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            check(cur.fetchone() == (1,), "connection usable after cancel")
    else:
        thread.join()
    conn.close()


def TestTransactionStatus():
    conn = ConnectTrust()
    status = conn.info.transaction_status
    check(status == ext.TRANSACTION_STATUS_IDLE, "idle after connect")
    cur = conn.cursor()
    # autocommit off: psycopg2 opens a block before the first statement.
    cur.execute("SELECT 1")
    check(conn.info.transaction_status == ext.TRANSACTION_STATUS_INTRANS, "INTRANS after SELECT")
    try:
        cur.execute("SELECT 1/0")
    except psycopg2.errors.DivisionByZero:
        pass
    check(conn.info.transaction_status == ext.TRANSACTION_STATUS_INERROR, "INERROR after error")
    try:
        cur.execute("SELECT 1")
        check(False, "statement in failed block must fail")
    except psycopg2.errors.InFailedSqlTransaction as e:
        check(e.pgcode == "25P02", "25P02 in failed block")
    conn.rollback()
    check(conn.info.transaction_status == ext.TRANSACTION_STATUS_IDLE, "IDLE after rollback")
    cur.execute("SET LOCAL application_name = 'in_block'")
    cur.execute("SHOW application_name")
    check(cur.fetchone() == ("in_block",), "SET LOCAL visible inside the block")
    conn.commit()
    cur.execute("SHOW application_name")
    check(cur.fetchone() == ("psycopg2_test",), "SET LOCAL gone after commit")
    conn.rollback()
    conn.autocommit = True
    cur.execute("SELECT 1")
    check(conn.info.transaction_status == ext.TRANSACTION_STATUS_IDLE, "autocommit stays IDLE")
    cur.execute("BEGIN")
    check(conn.info.transaction_status == ext.TRANSACTION_STATUS_INTRANS, "explicit BEGIN")
    cur.execute("COMMIT")
    check(conn.info.transaction_status == ext.TRANSACTION_STATUS_IDLE, "explicit COMMIT")
    conn.close()


def TestSettings():
    conn = ConnectTrust()
    conn.autocommit = True
    cur = conn.cursor()
    info = conn.info
    check(info.server_version // 10000 == 15, f"server_version {info.server_version}")
    check(info.parameter_status("client_encoding") == "UTF8", "client_encoding status")
    check(info.parameter_status("integer_datetimes") == "on", "integer_datetimes status")
    for name, value, shown in [("DateStyle", "SQL, DMY", "SQL, DMY"),
                               ("extra_float_digits", "2", "2"),
                               ("application_name", "renamed", "renamed"),
                               ("statement_timeout", "1500", "1500ms"),
                               ("bytea_output", "escape", "escape")]:
        try:  # one unsupported setting must not hide the others
            cur.execute(f"SET {name} = %s", (value,))
            cur.execute(f"SHOW {name}")
            check(cur.fetchone() == (shown,), f"SHOW {name} after SET")
            cur.execute("SELECT current_setting(%s)", (name,))
            check(cur.fetchone() == (shown,), f"current_setting({name!r})")
        except psycopg2.Error as e:
            check(False, f"SET {name} = {value!r}: {e.pgcode} {e}".strip())
    check(info.parameter_status("DateStyle") == "SQL, DMY", "DateStyle ParameterStatus after SET")
    try:
        cur.execute("SELECT %s::date::text", (datetime.date(2024, 2, 29),))
        check(cur.fetchone() == ("29/02/2024",), "date input and output under SQL, DMY")
    except psycopg2.Error as e:
        check(False, f"date under SQL, DMY: {e.pgcode} {e}".strip())
    cur.execute("SELECT set_config('application_name', 'via_fn', false)")
    check(cur.fetchone() == ("via_fn",), "set_config result")
    check(info.parameter_status("application_name") == "via_fn", "set_config reports status")
    cur.execute("RESET ALL")
    cur.execute("SHOW DateStyle")
    check(cur.fetchone() == ("ISO, MDY",), "RESET ALL restores DateStyle")
    cur.execute("SHOW application_name")
    check(cur.fetchone() == ("psycopg2_test",), "RESET ALL restores the startup application_name")
    try:
        cur.execute("SET no_such_setting = 1")
        check(False, "unknown setting must fail")
    except psycopg2.Error as e:
        check(e.pgcode == "42704", f"unknown setting -> 42704, got {e.pgcode}")
    conn.close()


def TestCopyOut():
    conn = ConnectTrust()
    cur = conn.cursor()
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT 1 AS a, 'x,y' AS b, NULL AS c) TO STDOUT WITH (FORMAT csv, "
                    "HEADER)", out)
    check(out.getvalue() == 'a,b,c\n1,"x,y",\n', f"COPY csv: {out.getvalue()!r}")
    check(cur.rowcount == 1, f"COPY row count {cur.rowcount}")
    conn.close()


TESTS = [("auth", TestAuth), ("parameters", TestParameters), ("errors", TestErrors),
         ("cancel", TestCancel), ("transaction_status", TestTransactionStatus),
         ("settings", TestSettings), ("copy_out", TestCopyOut)]


def main():
    failed_tests = 0
    for name, fn in TESTS:
        print(f"psycopg2 {name}", flush=True)
        check.test_failed = False
        try:
            fn()
        except Exception as e:  # an unexpected error fails this test, not the whole run
            check(False, f"unexpected {type(e).__name__}: {e}")
        print(f"psycopg2 {name}: {'FAILED' if check.test_failed else 'ok'}", flush=True)
        failed_tests += check.test_failed
    print(f"psycopg2_test: {check.checks} checks, {check.failures} failed, {failed_tests} of "
          f"{len(TESTS)} tests failed")
    return 0 if check.failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
