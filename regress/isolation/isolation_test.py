#!/usr/bin/python3
"""Isolation scenarios as real concurrent sessions over the wire (issue 5 "Show"; DESIGN.md §2),
run by regress/protocol/harness.py (suite "isolation") against farmdb or PostgreSQL 15.

Each scenario drives two or three psycopg2 sessions (autocommit on: the statements BEGIN and
COMMIT themselves) step by step, each session on its own thread, and asserts the outcome at
every isolation level: which statements see which values, which transaction fails with 40001,
and the final rows. PostgreSQL is the oracle (label oracle); farmdb must give the same outcome
(label e2e) except where DESIGN.md §2 makes it stricter, which the scenario states and asserts:

- farmdb is optimistic (FaRMv2 OCC): a write never waits for another transaction's write. Where
  PostgreSQL blocks the second writer until the first commits, farmdb lets it continue and the
  second transaction fails with 40001 at its next read of a newer version (serializable, FaRMv2
  §4.7 eager validation) or at COMMIT (LOCK finds the row changed). The same committed state
  results, with the failure reported at a later statement.
- farmdb's READ COMMITTED is snapshot isolation with a fresh read timestamp per statement. Like
  PostgreSQL's, it re-applies an UPDATE to the newest version of a row another transaction
  updated since (EvalPlanQual), but at COMMIT rather than in the blocked UPDATE: the row is read
  again, WHERE checked again and SET applied again (sql/exec/transaction_block.h). So the
  dirty-write interleaving, the client-computed lost update and concurrent increments end as on
  PostgreSQL. Where PostgreSQL's re-check finds the row no longer matching and updates nothing,
  farmdb has already reported the row updated and fails the COMMIT with 40001; and a row the
  transaction read back after updating it (its value reached the client) is not re-applied,
  so that COMMIT fails too (first committer wins), as it does at every level for UPDATEs that
  read anything but the row and parameters (a subquery, a function call).
- Row locks (SELECT ... FOR UPDATE / FOR SHARE, row_locks.py) never block either: they are
  checked when their transaction commits, so where PostgreSQL makes the second locker wait (or
  detects a deadlock), farmdb fails the second to commit with 40001.

The server's address comes from the harness's E2E_* environment variables. Exits 1 if any check
failed.
"""

import sys

from isolation_support import (LEVELS, ON_POSTGRES, RC, RR, SER, Begin, FinishOrFail, Scenario,
                               check)
import row_locks


# ---- scenarios -------------------------------------------------------------------------------

def DirtyWrite(level):
    """P0: T2 writes a row T1 wrote and has not committed. Rows stay consistent (both 11 or both
    22): T2 never overwrites T1's uncommitted write and then gets half of it undone."""
    sc = Scenario([(1, 10), (2, 10)])
    try:
        Begin(sc.s1, level)
        Begin(sc.s2, level)
        sc.s1.Ok("UPDATE t SET v = 11 WHERE k = 1")
        pending = sc.s2.Start("UPDATE t SET v = 22 WHERE k = 1")
        if ON_POSTGRES:
            sc.AwaitBlocked(sc.s2, pending)  # row lock held by T1
        else:
            check(pending.result().ok, f"farmdb does not block the second writer: {pending.result()!r}")
        sc.s1.Ok("UPDATE t SET v = 11 WHERE k = 2")
        sc.s1.Ok("COMMIT")
        first = pending.result()
        if first.ok:
            failed = FinishOrFail(sc.s2, ["UPDATE t SET v = 22 WHERE k = 2", "COMMIT"])
        else:
            failed = first.sqlstate
            sc.s2.Ok("ROLLBACK")
        if ON_POSTGRES and level != RC:
            check(not first.ok, f"{level}: PostgreSQL fails T2's blocked UPDATE once T1 commits: {first!r}")
        if level == RC:
            # READ COMMITTED re-applies T2's UPDATE of row 1 to T1's committed row (farmdb at
            # T2's COMMIT).
            check.Equal(failed, None, f"{level}: T2 commits after T1")
            check.Equal(sc.Values(), [22, 22], f"{level}: final rows")
        else:
            check.Equal(failed, "40001", f"{level}: T2 fails")
            check.Equal(sc.Values(), [11, 11], f"{level}: final rows")
    finally:
        sc.Close()


def DirtyRead(level):
    """P1: no level reads another transaction's uncommitted write (READ UNCOMMITTED included:
    PostgreSQL runs it as READ COMMITTED, DESIGN.md §2 likewise)."""
    sc = Scenario([(1, 10)])
    try:
        Begin(sc.s1, level)
        sc.s1.Ok("UPDATE t SET v = 99 WHERE k = 1")
        Begin(sc.s2, level)
        check.Equal(sc.s2.Ok("SELECT v FROM t WHERE k = 1"), [(10,)], f"{level}: read of an uncommitted write")
        sc.s1.Ok("ROLLBACK")
        check.Equal(sc.s2.Ok("SELECT v FROM t WHERE k = 1"), [(10,)], f"{level}: after the writer rolled back")
        sc.s2.Ok("COMMIT")
        Begin(sc.s1, level)
        sc.s1.Ok("UPDATE t SET v = 99 WHERE k = 1")
        check.Equal(sc.s2.Ok("SELECT v FROM t WHERE k = 1"), [(10,)], f"{level}: autocommit read, writer open")
        sc.s1.Ok("COMMIT")
        check.Equal(sc.s2.Ok("SELECT v FROM t WHERE k = 1"), [(99,)], f"{level}: autocommit read after commit")
    finally:
        sc.Close()


def LostUpdate(level):
    """P4: two read-modify-write transactions (the client computes v + 1). READ COMMITTED loses
    one increment (the second UPDATE sets a constant, re-applied to the newest row);
    REPEATABLE READ and SERIALIZABLE fail the second with 40001."""
    sc = Scenario([(1, 10)])
    try:
        Begin(sc.s1, level)
        Begin(sc.s2, level)
        (v1,), = sc.s1.Ok("SELECT v FROM t WHERE k = 1")
        (v2,), = sc.s2.Ok("SELECT v FROM t WHERE k = 1")
        check.Equal((v1, v2), (10, 10), f"{level}: both read")
        sc.s1.Ok(f"UPDATE t SET v = {v1 + 1} WHERE k = 1")
        pending = sc.s2.Start(f"UPDATE t SET v = {v2 + 1} WHERE k = 1")
        if ON_POSTGRES:
            sc.AwaitBlocked(sc.s2, pending)
        else:
            check(pending.result().ok, f"farmdb does not block the second writer: {pending.result()!r}")
        sc.s1.Ok("COMMIT")
        first = pending.result()
        if first.ok:
            failed = FinishOrFail(sc.s2, ["COMMIT"])
        else:
            failed = first.sqlstate
            sc.s2.Ok("ROLLBACK")
        if level == RC:
            check.Equal(failed, None, f"{level}: the second increment commits (lost update)")
        else:
            check.Equal(failed, "40001", f"{level}: the second read-modify-write fails")
        check.Equal(sc.Values(), [11], f"{level}: final value")
    finally:
        sc.Close()


def SecondWriterAfterTheFirstCommits(sc, level, first, second):
    """T1 runs `first` and T2 then `second` on the same row, both at `level`; PostgreSQL blocks
    T2 until T1 ends, farmdb never. T1 commits. Returns T2's statement Result."""
    Begin(sc.s1, level)
    Begin(sc.s2, level)
    sc.s1.Ok(first)
    pending = sc.s2.Start(second)
    row_locks.Proceed(sc, sc.s2, pending)
    sc.s1.Ok("COMMIT")
    return pending.result()


def ConcurrentIncrements(level):
    """Two transactions add to the same row in the server (SET v = v + n). READ COMMITTED
    applies the second to the first's committed row, so both count; REPEATABLE READ and
    SERIALIZABLE fail the second with 40001 (PostgreSQL in its blocked UPDATE, farmdb at COMMIT).
    """
    sc = Scenario([(1, 10), (2, 10)])
    try:
        second = SecondWriterAfterTheFirstCommits(sc, level, "UPDATE t SET v = v + 1 WHERE k = 1",
                                                  "UPDATE t SET v = v + 10 WHERE k = 1")
        if second.ok:
            # Row 2, untouched by T1, is written as usual alongside the re-applied row 1.
            failed = FinishOrFail(sc.s2, ["UPDATE t SET v = v + 10 WHERE k = 2", "COMMIT"])
        else:
            failed = second.sqlstate
            sc.s2.Ok("ROLLBACK")
        if level == RC:
            check.Equal(failed, None, f"{level}: the second increment commits")
            check.Equal(sc.Values(), [21, 20], f"{level}: final rows")
        else:
            check.Equal(failed, "40001", f"{level}: the second increment fails")
            check.Equal(sc.Values(), [11, 10], f"{level}: final rows")
    finally:
        sc.Close()


def ReappliedUpdateChecksWhereAgain(level):
    """READ COMMITTED: T2's UPDATE ... WHERE v = 10 meets T1's update to 20. PostgreSQL re-checks
    WHERE on the new row in the blocked UPDATE and updates nothing (UPDATE 0); farmdb already
    reported UPDATE 1, so its COMMIT re-checks WHERE, finds it false and fails with 40001. The
    committed rows are the same."""
    sc = Scenario([(1, 10)])
    try:
        second = SecondWriterAfterTheFirstCommits(sc, level, "UPDATE t SET v = 20 WHERE k = 1",
                                                  "UPDATE t SET v = v + 1 WHERE k = 1 AND v = 10")
        check(second.ok, f"{level}: T2's UPDATE: {second!r}")
        failed = FinishOrFail(sc.s2, ["COMMIT"])
        check.Equal(failed, None if ON_POSTGRES else "40001", f"{level}: T2's COMMIT")
        check.Equal(sc.Values(), [20], f"{level}: final rows")
    finally:
        sc.Close()


def ReadBackUpdateIsNotReapplied(level):
    """READ COMMITTED: T2 updates a row T1 has updated, then reads it back. PostgreSQL's T2
    waits for T1, updates T1's row and reads 21; farmdb's T2 reads 11 (its update of the row it
    read), which a re-applied write would contradict, so its COMMIT fails with 40001."""
    sc = Scenario([(1, 10)])
    try:
        second = SecondWriterAfterTheFirstCommits(sc, level, "UPDATE t SET v = 20 WHERE k = 1",
                                                  "UPDATE t SET v = v + 1 WHERE k = 1")
        check(second.ok, f"{level}: T2's UPDATE: {second!r}")
        check.Equal(sc.s2.Ok("SELECT v FROM t WHERE k = 1"), [(21,)] if ON_POSTGRES else [(11,)], f"{level}: T2 reads back")
        failed = FinishOrFail(sc.s2, ["COMMIT"])
        check.Equal(failed, None if ON_POSTGRES else "40001", f"{level}: T2's COMMIT")
        check.Equal(sc.Values(), [21] if ON_POSTGRES else [20], f"{level}: final rows")
    finally:
        sc.Close()


def ReadSkew(level):
    """A5A: T1 reads x, T2 moves 25 from x to y and commits, T1 reads y. READ COMMITTED sees the
    inconsistent pair (a fresh snapshot per statement); REPEATABLE READ and SERIALIZABLE keep one
    snapshot."""
    sc = Scenario([(1, 50), (2, 50)])
    try:
        Begin(sc.s1, level)
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 1"), [(50,)], f"{level}: T1 reads x")
        Begin(sc.s2, level)
        sc.s2.Ok("UPDATE t SET v = 25 WHERE k = 1")
        sc.s2.Ok("UPDATE t SET v = 75 WHERE k = 2")
        sc.s2.Ok("COMMIT")
        want = 75 if level == RC else 50
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 2"), [(want,)], f"{level}: T1 reads y")
        check.Equal(sc.s1.Run("COMMIT").ok, True, f"{level}: the reader commits")
        check.Equal(sc.Values(), [25, 75], f"{level}: final rows")
    finally:
        sc.Close()


def WriteSkew(level):
    """A5B: two on-call doctors; each checks both are on call and takes one off. Snapshot
    isolation (REPEATABLE READ, and READ COMMITTED) commits both and breaks "at least one on
    call"; SERIALIZABLE fails one of them with 40001."""
    sc = Scenario([(1, 1), (2, 1)])
    try:
        Begin(sc.s1, level)
        Begin(sc.s2, level)
        for s in (sc.s1, sc.s2):
            check.Equal(s.Ok("SELECT v FROM t WHERE k = 1"), [(1,)], f"{level}: {s.name} reads 1")
            check.Equal(s.Ok("SELECT v FROM t WHERE k = 2"), [(1,)], f"{level}: {s.name} reads 2")
        failed1 = FinishOrFail(sc.s1, ["UPDATE t SET v = 0 WHERE k = 1"])
        failed2 = FinishOrFail(sc.s2, ["UPDATE t SET v = 0 WHERE k = 2"])
        if failed1 is None:
            failed1 = FinishOrFail(sc.s1, ["COMMIT"])
        if failed2 is None:
            failed2 = FinishOrFail(sc.s2, ["COMMIT"])
        final = sc.Values()
        if level == SER:
            check({failed1, failed2} == {None, "40001"},
                  f"{level}: exactly one fails with 40001: T1 {failed1}, T2 {failed2}")
            check.Equal(sorted(final), [0, 1], f"{level}: one doctor stays on call")
            # farmdb: T1 commits first, so T2's read of row 1 fails validation at its COMMIT.
            if not ON_POSTGRES:
                check.Equal((failed1, failed2), (None, "40001"), f"{level}: the later committer fails")
        else:
            check.Equal((failed1, failed2), (None, None), f"{level}: write skew commits both")
            check.Equal(final, [0, 0], f"{level}: final rows")
    finally:
        sc.Close()


def ReadOnlySnapshot(level):
    """A READ ONLY transaction keeps its snapshot while others commit (farmdb: read-only commit
    is a no-op, DESIGN.md §2), and refuses writes with 25006."""
    sc = Scenario([(1, 10), (2, 10)])
    try:
        Begin(sc.s1, level, read_only=True)
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 1"), [(10,)], f"{level}: first read")
        for k in (1, 2):
            sc.s2.Ok(f"UPDATE t SET v = {k * 100} WHERE k = {k}")
        sc.s2.Ok("INSERT INTO t VALUES (3, 300)")
        check.Equal(sc.s1.Ok("SELECT k, v FROM t ORDER BY k"), [(1, 10), (2, 10)],
                    f"{level}: the snapshot after others committed")
        r = sc.s1.Run("UPDATE t SET v = 0 WHERE k = 1")
        check.Equal((r.sqlstate, r.message.splitlines()[0] if r.message else None),
                    ("25006", "ERROR:  cannot execute UPDATE in a read-only transaction"),
                    f"{level}: a write in a READ ONLY transaction")
        sc.s1.Ok("ROLLBACK")
        check.Equal(sc.Values(), [100, 200, 300], f"{level}: final rows")
    finally:
        sc.Close()


def ReadCommittedSeesCommits(level):
    """Each READ COMMITTED statement sees what committed before it started (DESIGN.md §2: a
    fresh read timestamp per statement); REPEATABLE READ keeps the first statement's snapshot."""
    sc = Scenario([(1, 10), (2, 10)])
    try:
        Begin(sc.s1, level)
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 1"), [(10,)], f"{level}: first read")
        sc.s2.Ok("UPDATE t SET v = 20 WHERE k = 1")
        want = 20 if level == RC else 10
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 1"), [(want,)], f"{level}: after an update committed")
        sc.s2.Ok("INSERT INTO t VALUES (3, 30)")
        want = [1, 2, 3] if level == RC else [1, 2]
        check.Equal([k for (k,) in sc.s1.Ok("SELECT k FROM t ORDER BY k")], want, f"{level}: after an insert committed")
        # A write of its own is visible to its later statements, fresh snapshot or not.
        sc.s1.Ok("UPDATE t SET v = 5 WHERE k = 2")
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 2"), [(5,)], f"{level}: own write")
        sc.s1.Ok("COMMIT")
        check.Equal(sc.Values(), [20, 5, 30], f"{level}: final rows")
    finally:
        sc.Close()


SCENARIOS = [
    (DirtyWrite, LEVELS),
    (DirtyRead, ["READ UNCOMMITTED"] + LEVELS),
    (LostUpdate, LEVELS),
    (ConcurrentIncrements, LEVELS),
    (ReappliedUpdateChecksWhereAgain, [RC]),
    (ReadBackUpdateIsNotReapplied, [RC]),
    (ReadSkew, LEVELS),
    (WriteSkew, LEVELS),
    (ReadOnlySnapshot, [RR, SER]),
    (ReadCommittedSeesCommits, [RC, RR]),
] + row_locks.SCENARIOS


def main():
    failed_scenarios = []
    for scenario, levels in SCENARIOS:
        for level in levels:
            before = check.failures
            print(f"{scenario.__name__} / {level}", flush=True)
            try:
                scenario(level)
            except Exception as e:  # a broken scenario is a failure, never a skip
                check(False, f"{scenario.__name__} / {level} raised {type(e).__name__}: {e}")
            if check.failures != before:
                failed_scenarios.append(f"{scenario.__name__} / {level}")
    print(f"{check.checks} checks, {check.failures} failed")
    for name in failed_scenarios:
        print(f"FAILED: {name}")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
