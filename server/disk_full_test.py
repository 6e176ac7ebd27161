#!/usr/bin/python3
"""A full disk: farmdb runs with its data directory on a tmpfs (in a private mount namespace,
`unshare -rm`, so no privileges and nothing left mounted) that a ballast file fills but for a
little room, and the data grows until it needs a region file there is no room for: rows (a data
region), or old versions that an open snapshot keeps (an old-version region). The statement that
needs it fails with SQLSTATE 53100 (disk_full, as PostgreSQL's "could not extend file"); the
server keeps running, and every committed row is still there.

Before region files were allocated on creation (posix_fallocate), they were created sparse and
the server died of SIGBUS at the first store to a page the tmpfs could not back; and a commit
whose old versions found no room failed as a lock conflict (40001), which clients retry forever.

Usage: disk_full_test.py path/to/farmdb"""
import contextlib, os, re, subprocess, sys, tempfile, time

import psycopg2

from script_checks import check, die_with_parent, finish

farmdb = sys.argv[1]

ROWS_PER_INSERT = 2000
ROW_BYTES = 1000
MB = 1 << 20


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


@contextlib.contextmanager
def server_on_tmpfs(machines, size, room):
    """farmdb with `machines` in-process machines on a tmpfs of `size` bytes that has `room`
    bytes left once it started (a ballast file takes the rest). Yields the port and the tmpfs
    as seen from here."""
    with tempfile.TemporaryDirectory() as mnt:
        script = 'mount -t tmpfs -o size="$1" farmdb-disk-full "$2" && shift 2 && exec "$@"'
        server = subprocess.Popen(
            ["unshare", "-rm", "sh", "-c", script, "sh", str(size), mnt, farmdb, "-p", "0", "-D",
             mnt + "/data", "--log-level", "warn", "-o", f"farmdb.machines={machines}"],
            stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
        try:
            ready = server.stdout.readline()
            m = re.search(r"127\.0\.0\.1:(\d+) ", ready)
            if m is None:
                sys.exit(f"FAIL: farmdb did not start on a tmpfs: {ready!r}")
            # The server's mount namespace, seen from here (unshare execs farmdb: same pid).
            fs = f"/proc/{server.pid}/root{mnt}"
            with open(fs + "/ballast", "wb") as f:
                os.posix_fallocate(f.fileno(), 0, free_bytes(fs) - room)
            yield int(m.group(1)), fs
            check(server.poll() is None, "the server is still running")
        finally:
            server.terminate()
            try:
                rc = server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                rc = server.wait()
            check(rc == 0, f"SIGTERM stops the server cleanly (exit {rc})")


def log_bytes(fs):
    """What the machines' durable logs take (their segments are allocated whole)."""
    total = 0
    for root, _, files in os.walk(fs):
        if os.path.basename(root) == "wal":
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def connect(port):
    return psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")


def check_disk_full(error, what):
    check(error is not None, f"{what} fails")
    if error is not None:
        check(error.pgcode == "53100", f"{what} gets 53100, got {error.pgcode}: {error}")
        check("No space left on device" in str(error), f"the message says why: {error}")
        check(error.diag.message_hint == "Check free disk space.", "PostgreSQL's hint")


def insert_rows(cur, first, count):
    cur.execute("INSERT INTO t SELECT g, repeat('x', %s) FROM generate_series(%s, %s) g",
                (ROW_BYTES, first, first + count - 1))


def fill_with_rows(machines, size, room):
    """Rows until a data region does not fit."""
    print(f"-- rows, {machines} machine(s), {room // MB} MB left")
    with server_on_tmpfs(machines, size, room) as (port, fs):
        conn = connect(port)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (id int PRIMARY KEY, payload text)")
        log_at_start = log_bytes(fs)
        committed = 0
        error = None
        # The regions there are and `room` cannot hold 256 MB more of rows: the loop ends with an
        # error well before.
        while committed * ROW_BYTES < room + 256 * MB:
            try:
                insert_rows(cur, committed + 1, ROWS_PER_INSERT)
                committed += ROWS_PER_INSERT
            except psycopg2.Error as e:
                error = e
                break
        check_disk_full(error, "inserting more than the room left")
        check(committed > 0, "rows fit before the disk filled")
        # A region some replicas had made room for before another had none was dropped again:
        # the room is still there, less what the durable logs grew by (the rows' records) and
        # what the catalog and rows took.
        left = free_bytes(fs)
        logs = log_bytes(fs) - log_at_start
        check(left + logs > room - 32 * MB,
              f"{left // MB} MB of {room // MB} MB left after the failure, the logs grew {logs // MB} MB")

        # Every committed row is intact, read on a new connection.
        fresh = connect(port)
        fc = fresh.cursor()
        fc.execute("SELECT count(*), count(DISTINCT id), min(length(payload)), max(id) FROM t")
        check(fc.fetchone() == (committed, committed, ROW_BYTES, committed),
              f"the {committed} committed rows are all there")
        # Writes that need no new region still work: an update, a delete.
        fc.execute("UPDATE t SET payload = 'y' WHERE id = 1")
        fc.execute("DELETE FROM t WHERE id = 2")
        fresh.commit()
        fc.execute("SELECT payload FROM t WHERE id = 1")
        check(fc.fetchone() == ("y",), "an UPDATE commits after the failure")
        fc.execute("SELECT count(*) FROM t")
        check(fc.fetchone() == (committed - 1,), "a DELETE commits after the failure")
        fresh.close()
        conn.close()


def fill_with_old_versions(machines, size, room):
    """Updates while a REPEATABLE READ snapshot keeps every old version, until the old-version
    region (64 MB) is full and the next one does not fit.

    On three machines the updates come from a session on another machine than the rows'
    primary: sessions go to the machines in turn (sql/node.cc, NextMachine), so the rows are
    inserted on one, the snapshot runs on the next and the updates on the third. The primary
    then meets the full disk while it locks for a remote coordinator, and its LOCK-REPLY must
    carry that back (LockOutcome::kNoSpace) as 53100, not as a conflict to retry."""
    print(f"-- old versions, {machines} machine(s), {room // MB} MB left")
    rows = 8000  # 8 MB a pass: the old-version region holds about 8 passes
    with server_on_tmpfs(machines, size, room) as (port, fs):
        owner = connect(port)
        owner.autocommit = True
        owner.cursor().execute("CREATE TABLE t (id int PRIMARY KEY, payload text)")
        insert_rows(owner.cursor(), 1, rows)
        snapshot = connect(port)
        conn = connect(port) if machines > 1 else owner
        conn.autocommit = True
        cur = conn.cursor()
        sc = snapshot.cursor()
        sc.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        sc.execute("SELECT count(*) FROM t")
        check(sc.fetchone() == (rows,), "the snapshot sees the rows")
        passes = 0
        error = None
        while passes < 20:
            try:
                cur.execute("UPDATE t SET payload = repeat(%s, %s)", (chr(ord("a") + passes), ROW_BYTES))
                passes += 1
            except psycopg2.Error as e:
                error = e
                break
        check_disk_full(error, "updating while old versions fill the room")
        check(passes > 0, "updates committed before the disk filled")
        # The snapshot still reads what it began with.
        sc.execute("SELECT count(*), min(payload), max(payload) FROM t")
        check(sc.fetchone() == (rows, "x" * ROW_BYTES, "x" * ROW_BYTES), "the snapshot is intact")
        snapshot.rollback()
        snapshot.close()
        # Once the snapshot is gone, GC frees the old versions and updates commit again.
        last = chr(ord("a") + passes - 1) * ROW_BYTES if passes else "x" * ROW_BYTES
        cur.execute("SELECT count(*), min(payload), max(payload) FROM t")
        check(cur.fetchone() == (rows, last, last), f"the {passes} committed updates are there")
        updated = False
        for _ in range(100):
            try:
                cur.execute("UPDATE t SET payload = 'z' WHERE id <= 100")
                updated = True
                break
            except psycopg2.Error as e:
                if e.pgcode != "53100":
                    check(False, f"an UPDATE after the snapshot ended: {e.pgcode} {e}")
                    break
                time.sleep(0.05)
        check(updated, "an UPDATE commits once the snapshot ended")
        conn.close()
        owner.close()


# Regions are 64 MB; every commit is also written to the durable logs (16 MB segments) of the
# machines holding its objects, so the room left covers the log the rows need first. One
# machine: the second region the rows need does not fit. Three machines (a region on a primary
# and two backups, each logging the rows): two replicas fit it, the third does not, and the two
# must give their space back. Old versions: the second old-version region does not fit. The
# sizes leave a small ballast over what a server starts with (one machine: a 32 MB ring, a log
# segment and a region; three: nine rings, three segments and four regions): filling gigabytes
# of tmpfs stalls a 2-core machine long enough to upset timing-bound tests beside it.
fill_with_rows(1, 320 * MB, 110 * MB)
fill_with_rows(3, 1024 * MB, 310 * MB)
fill_with_old_versions(1, 320 * MB, 110 * MB)
fill_with_old_versions(3, 900 * MB, 110 * MB)

finish()
