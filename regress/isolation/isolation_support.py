"""Sessions for the isolation scenarios (isolation_test.py, row_locks.py): connections that run
their statements on threads of their own, a table per scenario, PostgreSQL's blocking observed
through pg_blocking_pids (never timed), and the check counter. The server's address comes from
the harness's E2E_* environment variables.
"""

import concurrent.futures
import os
import time

import psycopg2

ENV = os.environ
ON_POSTGRES = ENV.get("E2E_TARGET") == "postgres"
RC, RR, SER = "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"
LEVELS = [RC, RR, SER]
# A session PostgreSQL blocks must show up as blocked within this long; it is a bound on a hang,
# not a timing assertion (a blocked session stays blocked until the other commits).
BLOCK_WAIT_LIMIT_S = 60


class Checker:
    def __init__(self):
        self.checks = 0
        self.failures = 0

    def __call__(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures += 1
            print(f"    FAIL: {what}", flush=True)
        return ok

    def Equal(self, got, want, what):
        return self(got == want, f"{what}: got {got!r}, want {want!r}")


check = Checker()


class Result:
    """A statement's outcome: its rows (None for commands), or its error's SQLSTATE."""

    def __init__(self, rows=None, sqlstate=None, message=None):
        self.rows, self.sqlstate, self.message = rows, sqlstate, message

    @property
    def ok(self):
        return self.sqlstate is None

    def __repr__(self):
        return f"rows {self.rows!r}" if self.ok else f"ERROR {self.sqlstate} {self.message}"


class Session:
    """One connection whose statements run, in order, on a thread of its own."""

    def __init__(self, name):
        self.name = name
        self.conn = psycopg2.connect(host=ENV["E2E_HOST"], port=ENV["E2E_PORT"], dbname="postgres",
                                     user=ENV["E2E_TRUST_USER"], connect_timeout=20,
                                     application_name=f"isolation_{name}")
        self.conn.autocommit = True
        self.pid = self.conn.get_backend_pid()
        self.thread = concurrent.futures.ThreadPoolExecutor(max_workers=1)

    def _Execute(self, sql):
        with self.conn.cursor() as cur:
            try:
                cur.execute(sql)
            except psycopg2.Error as e:
                return Result(sqlstate=e.pgcode, message=(e.pgerror or str(e)).strip())
            return Result(rows=cur.fetchall() if cur.description else None)

    def Start(self, sql):
        """Sends `sql` and returns a Future of its Result without waiting."""
        return self.thread.submit(self._Execute, sql)

    def Run(self, sql):
        return self.Start(sql).result()

    def Ok(self, sql):
        """Runs `sql`, which must succeed; its rows."""
        r = self.Run(sql)
        check(r.ok, f"{self.name}: {sql}: {r!r}")
        return r.rows

    def Close(self):
        self.thread.shutdown()
        self.conn.close()


class Scenario:
    """Sessions s1, s2 and an observer over a fresh table t(k, v) holding `rows`."""

    def __init__(self, rows):
        self.s1, self.s2, self.observer = Session("s1"), Session("s2"), Session("observer")
        self.observer.Ok("DROP TABLE IF EXISTS t")
        self.observer.Ok("CREATE TABLE t (k int PRIMARY KEY, v int)")
        values = ", ".join(f"({k}, {v})" for k, v in rows)
        self.observer.Ok(f"INSERT INTO t VALUES {values}")

    def Values(self):
        return [v for (v,) in self.observer.Ok("SELECT v FROM t ORDER BY k")]

    def AwaitBlocked(self, session, pending):
        """PostgreSQL only: `session`'s pending statement waits for a lock (pg_blocking_pids)."""
        deadline = time.monotonic() + BLOCK_WAIT_LIMIT_S
        while time.monotonic() < deadline:
            if pending.done():
                return check(False, f"{session.name} should block, finished with {pending.result()!r}")
            (blocked,), = self.observer.Ok(f"SELECT cardinality(pg_blocking_pids({session.pid})) > 0")
            if blocked:
                return True
            time.sleep(0.01)
        return check(False, f"{session.name} did not block within {BLOCK_WAIT_LIMIT_S} s")

    def Close(self):
        for s in (self.s1, self.s2, self.observer):
            s.Close()


def FinishOrFail(session, statements):
    """Runs `statements` until one fails; then ROLLBACK. The failure's SQLSTATE (None if none)."""
    for sql in statements:
        r = session.Run(sql)
        if not r.ok:
            session.Ok("ROLLBACK")
            return r.sqlstate
    return None


def Begin(session, level, read_only=False):
    session.Ok(f"BEGIN ISOLATION LEVEL {level}" + (" READ ONLY" if read_only else ""))
