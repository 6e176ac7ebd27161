"""Row-lock scenarios (SELECT ... FOR UPDATE / FOR SHARE) for isolation_test.py, against farmdb
or PostgreSQL 15.

PostgreSQL locks rows when the SELECT runs and makes a conflicting locker or writer wait for
the lock holder's end. farmdb's locks are optimistic (FaRM OCC, DESIGN.md §2): FOR UPDATE joins
the row to the write set as an unchanged rewrite, FOR SHARE has the row validated at commit,
at every isolation level. Nothing waits; of two transactions whose locks conflict, the second
to commit fails with 40001. Each scenario asserts PostgreSQL's outcome on the oracle and
farmdb's otherwise, and says where they differ:

- two FOR UPDATE lockers that then update the row: PostgreSQL blocks the second; at READ
  COMMITTED it then updates the first's new row version (no lost update), at REPEATABLE READ
  and SERIALIZABLE it fails with 40001. farmdb fails the second at every level (first
  committer wins), so no level loses the update either;
- FOR SHARE of the rows a decision reads prevents write skew, which plain SELECT allows under
  REPEATABLE READ (isolation_test.py WriteSkew). PostgreSQL gets there by blocking both
  updaters, a deadlock it breaks by failing one (40P01); farmdb fails the second to commit;
- two FOR UPDATE lockers that change other rows: PostgreSQL serialises them (the second waits,
  then commits); farmdb fails the second, since a lock it cannot hold across the first's
  commit is only kept by making that commit a new version of the row.
"""

import concurrent.futures

from isolation_support import ON_POSTGRES, RC, RR, SER, Begin, FinishOrFail, Scenario, check


def Proceed(sc, session, pending):
    """A statement PostgreSQL blocks until the other transaction ends, farmdb never."""
    if ON_POSTGRES:
        sc.AwaitBlocked(session, pending)
    else:
        check(pending.result().ok, f"farmdb does not block {session.name}: {pending.result()!r}")


def CommitInTurn(pending):
    """Commits each (session, pending statement) whose statement succeeded, rolls back the
    others; their failures' SQLSTATEs (None: committed) in `pending`'s order. On PostgreSQL a
    statement may wait for another session's locks, so they are finished as they complete (a
    failed transaction keeps its locks until ROLLBACK); farmdb's never wait, so in order."""
    failed = {}
    remaining = dict(pending)
    while remaining:
        if ON_POSTGRES:
            done, _ = concurrent.futures.wait(list(remaining.values()), return_when=concurrent.futures.FIRST_COMPLETED)
            session = next(s for s, f in remaining.items() if f in done)
        else:
            session = next(iter(remaining))
        r = remaining.pop(session).result()
        failed[session] = FinishOrFail(session, ["COMMIT"]) if r.ok else r.sqlstate
        if not r.ok:
            session.Ok("ROLLBACK")
    return [failed[s] for s, _ in pending]


def ForUpdateThenUpdate(level):
    """Two read-modify-write transactions that read the row FOR UPDATE (the client computes
    v + 1): at no level is an increment lost."""
    sc = Scenario([(1, 10)])
    try:
        Begin(sc.s1, level)
        Begin(sc.s2, level)
        (v1,), = sc.s1.Ok("SELECT v FROM t WHERE k = 1 FOR UPDATE")
        pending = sc.s2.Start("SELECT v FROM t WHERE k = 1 FOR UPDATE")
        Proceed(sc, sc.s2, pending)
        sc.s1.Ok(f"UPDATE t SET v = {v1 + 1} WHERE k = 1")
        sc.s1.Ok("COMMIT")
        locked = pending.result()
        if locked.ok:
            (v2,), = locked.rows
            failed = FinishOrFail(sc.s2, [f"UPDATE t SET v = {v2 + 1} WHERE k = 1", "COMMIT"])
        else:
            v2, failed = None, locked.sqlstate
            sc.s2.Ok("ROLLBACK")
        if ON_POSTGRES and level == RC:
            check.Equal((v2, failed), (11, None), f"{level}: PostgreSQL's second locker reads the new version")
            check.Equal(sc.Values(), [12], f"{level}: final value")
        else:
            # PostgreSQL fails the blocked SELECT once the first commits; farmdb's second
            # locker read 10 and fails when it writes or commits.
            if ON_POSTGRES:
                check.Equal(locked.sqlstate, "40001", f"{level}: the blocked locker fails")
            check.Equal(failed, "40001", f"{level}: the second locker fails")
            check.Equal(sc.Values(), [11], f"{level}: final value")
    finally:
        sc.Close()


def ForShareWriteSkew(level):
    """The on-call doctors of isolation_test.py WriteSkew, each reading the other's row FOR
    SHARE: at most one goes off call."""
    sc = Scenario([(1, 1), (2, 1)])
    try:
        Begin(sc.s1, level)
        Begin(sc.s2, level)
        check.Equal(sc.s1.Ok("SELECT v FROM t WHERE k = 2 FOR SHARE"), [(1,)], f"{level}: s1 reads row 2")
        check.Equal(sc.s2.Ok("SELECT v FROM t WHERE k = 1 FOR SHARE"), [(1,)], f"{level}: s2 reads row 1")
        first = sc.s1.Start("UPDATE t SET v = 0 WHERE k = 1")
        if ON_POSTGRES:
            sc.AwaitBlocked(sc.s1, first)  # row 1 is share-locked by s2
        second = sc.s2.Start("UPDATE t SET v = 0 WHERE k = 2")
        failed = CommitInTurn([(sc.s1, first), (sc.s2, second)])
        if ON_POSTGRES:
            # Each update waits for the other's share lock: a deadlock, broken by failing one.
            check(sorted(failed, key=str) == ["40P01", None], f"{level}: one deadlock victim: {failed}")
        else:
            check.Equal(failed, [None, "40001"], f"{level}: the second to commit fails validation")
        check.Equal(sorted(sc.Values()), [0, 1], f"{level}: one doctor stays on call")
    finally:
        sc.Close()


def LockersOfAnUnchangedRow(level):
    """Two transactions lock row 1 FOR UPDATE and change other rows, never row 1."""
    sc = Scenario([(1, 1), (2, 0), (3, 0)])
    try:
        Begin(sc.s1, level)
        Begin(sc.s2, level)
        sc.s1.Ok("SELECT v FROM t WHERE k = 1 FOR UPDATE")
        pending = sc.s2.Start("SELECT v FROM t WHERE k = 1 FOR UPDATE")
        Proceed(sc, sc.s2, pending)
        sc.s1.Ok("UPDATE t SET v = 1 WHERE k = 2")
        sc.s1.Ok("COMMIT")
        check(pending.result().ok, f"{level}: the second lock is granted: {pending.result()!r}")
        failed = FinishOrFail(sc.s2, ["UPDATE t SET v = 1 WHERE k = 3", "COMMIT"])
        if ON_POSTGRES:
            check.Equal(failed, None, f"{level}: PostgreSQL ran the second after the first")
            check.Equal(sc.Values(), [1, 1, 1], f"{level}: final rows")
        else:
            check.Equal(failed, "40001", f"{level}: the second locker fails at COMMIT")
            check.Equal(sc.Values(), [1, 1, 0], f"{level}: final rows")
    finally:
        sc.Close()


SCENARIOS = [
    (ForUpdateThenUpdate, [RC, RR, SER]),
    (ForShareWriteSkew, [RC, RR]),
    (LockersOfAnUnchangedRow, [RC, RR, SER]),
]
