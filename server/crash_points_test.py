#!/usr/bin/python3
"""Kills at chosen places: farmdb (a test build, with crash points: cluster/crash_point.h) is
started with FARMDB_CRASH_POINT=NAME:N and kills itself the N-th time it passes NAME, at each
commit phase, while logging a received record, during DDL, COPY, B-tree splits, a log segment
switch, a checkpoint, a region's allocation and a recovery's replay. After each kill the server
restarts (without the crash point) and must hold every acknowledged commit, no transaction in
part, and its invariants.
Prints how often each point was hit; fails if one never was.

Usage: crash_points_test.py path/to/farmdb [rounds per point]"""
import io, os, random, re, signal, subprocess, sys, tempfile, threading, time

import psycopg2

from script_checks import check, die_with_parent, finish

farmdb = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
POINTS = ["commit.locked", "commit.backed_up", "commit.logged", "commit.installing", "commit.committed",
          "participant.logged", "ddl.catalog", "copy.rows", "btree.split", "wal.segment", "checkpoint.image",
          "region.prepared", "recovery.replay"]
ACCOUNTS = 10


def start(data, machines, crash=None, check_ready=True):
    env = dict(os.environ)
    env.pop("FARMDB_CRASH_POINT", None)
    if crash:
        env["FARMDB_CRASH_POINT"] = crash
    server = subprocess.Popen([farmdb, "-p", "0", "-D", data, "--log-level", "warn", "-o", "unix_socket_directories=",
                               "-o", f"farmdb.machines={machines}"], stdout=subprocess.PIPE, text=True, env=env,
                               preexec_fn=die_with_parent)
    ready = server.stdout.readline()
    m = re.search(r"127\.0\.0\.1:(\d+) ", ready)
    if m is None:
        rc = server.wait()
        if check_ready:
            sys.exit(f"FAIL: farmdb did not start: {ready!r} (exit {rc})")
        return server, None
    return server, int(m.group(1))


def connect(port):
    return psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")


def workload(port, acked, stop, rng, number):
    """Transfers with ledger rows, DDL, COPY and inserts that split B-tree nodes, until the server
    goes. Records what was acknowledged."""
    try:
        conn = connect(port)
    except psycopg2.Error:
        return
    cur = conn.cursor()
    seq = 0
    while not stop.is_set():
        seq += 1
        try:
            r = rng.random()
            cur.execute("BEGIN")
            if r < 0.1:
                cur.execute(f"CREATE TABLE IF NOT EXISTS scratch_{number} (a int PRIMARY KEY, b text)")
                cur.execute(f"DROP TABLE scratch_{number}")
                cur.execute("COMMIT")
                continue
            if r < 0.2:
                batch = f"{number}-{seq}"
                rows = "".join(f"{batch}\t{i}\t{'x' * 100}\n" for i in range(1500))
                cur.copy_from(io.StringIO(rows), "bulk", columns=("batch", "n", "pad"))
                cur.execute("COMMIT")
                acked.append(("batch", batch))
                continue
            a, b = rng.sample(range(ACCOUNTS), 2)
            amount = rng.randint(1, 9)
            if rng.random() < 0.5:
                cur.execute("SET LOCAL synchronous_commit = off")
            cur.execute("UPDATE accounts SET balance = balance - %s WHERE id = %s", (amount, a))
            cur.execute("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, b))
            cur.execute("INSERT INTO ledger (client, seq, src, dst, amount, pad) VALUES (%s, %s, %s, %s, %s, %s)",
                        (number, seq, a, b, amount, "p" * rng.randint(10, 400)))
            cur.execute("COMMIT")
            acked.append(("transfer", (number, seq)))
            if rng.random() < 0.02:
                cur.execute("CHECKPOINT")
        except psycopg2.Error as e:
            if e.pgcode in ("40001", "42P07", "42P01"):
                try:
                    conn.rollback()
                except psycopg2.Error:
                    return
                continue
            return


def verify(port, acked, point):
    conn = connect(port)
    cur = conn.cursor()
    cur.execute("SELECT sum(balance) FROM accounts")
    check(cur.fetchone()[0] == ACCOUNTS * 1000, f"{point}: money conserved")
    cur.execute("SELECT client, seq, src, dst, amount FROM ledger")
    ledger = cur.fetchall()
    present = {(c, s) for c, s, _, _, _ in ledger}
    expected = [1000] * ACCOUNTS
    for _, _, src, dst, amount in ledger:
        expected[src] -= amount
        expected[dst] += amount
    cur.execute("SELECT balance FROM accounts ORDER BY id")
    check([b for (b,) in cur.fetchall()] == expected, f"{point}: balances match the ledger")
    cur.execute("SELECT batch, count(*) FROM bulk GROUP BY batch")
    batches = dict(cur.fetchall())
    check(all(n == 1500 for n in batches.values()), f"{point}: a COPY is there in part: {batches}")
    for kind, what in acked:
        if kind == "transfer":
            check(what in present, f"{point}: acknowledged transfer {what} lost")
        else:
            check(what in batches, f"{point}: acknowledged COPY {what} lost")
    cur.execute("UPDATE accounts SET balance = balance")
    conn.commit()
    conn.close()


def main():
    rng = random.Random(int(os.environ.get("FARMDB_SEED", "7")))
    hits = {p: 0 for p in POINTS}
    with tempfile.TemporaryDirectory(prefix="farmdb-crashpoints-") as tmp:
        for machines in (1, 3):
            data = os.path.join(tmp, f"data{machines}")
            server, port = start(data, machines)
            conn = connect(port)
            conn.autocommit = True
            cur = conn.cursor()
            cur.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint)")
            cur.execute("INSERT INTO accounts SELECT g, 1000 FROM generate_series(0, %s) g", (ACCOUNTS - 1,))
            cur.execute("CREATE TABLE ledger (id bigserial PRIMARY KEY, client int, seq int, src int, dst int, "
                        "amount int, pad text)")
            cur.execute("CREATE TABLE bulk (batch text, n int, pad text)")
            cur.execute("CREATE INDEX ON bulk (batch, n)")
            conn.close()
            server.terminate()
            server.wait()
            acked = []
            number = 0
            for point in POINTS:
                if point == "participant.logged" and machines == 1:
                    continue  # one machine receives no records from others
                for _ in range(ROUNDS):
                    if point == "recovery.replay":
                        # Die during the replay of a recovery: a run that did something, killed, then a
                        # restart armed to die mid-replay, then a clean one.
                        server, port = start(data, machines)
                        stop = threading.Event()
                        t = threading.Thread(target=workload, args=(port, acked, stop, random.Random(rng.random()), number))
                        number += 1
                        t.start()
                        time.sleep(0.5)
                        server.send_signal(signal.SIGKILL)
                        server.wait()
                        stop.set()
                        t.join()
                        server, port = start(data, machines, f"{point}:{rng.randint(1, 20)}", check_ready=False)
                        if port is None:
                            hits[point] += 1
                        else:
                            server.terminate()
                            server.wait()
                    else:
                        # A run allocates only a few regions (old versions start empty in each).
                        nth = rng.randint(1, 2) if point == "region.prepared" else rng.randint(1, 8)
                        server, port = start(data, machines, f"{point}:{nth}")
                        stop = threading.Event()
                        threads = []
                        for c in range(3):
                            t = threading.Thread(target=workload, args=(port, acked, stop, random.Random(rng.random()), number))
                            number += 1
                            t.start()
                            threads.append(t)
                        try:
                            rc = server.wait(timeout=20)
                        except subprocess.TimeoutExpired:
                            server.send_signal(signal.SIGKILL)
                            rc = server.wait()
                        else:
                            if rc == -signal.SIGKILL:
                                hits[point] += 1
                        stop.set()
                        for t in threads:
                            t.join()
                    server, port = start(data, machines)
                    verify(port, acked, f"{point} on {machines} machine(s)")
                    server.terminate()
                    check(server.wait(timeout=60) == 0, "SIGTERM stops the server cleanly")
    for point in POINTS:
        print(f"{point}: hit {hits[point]} time(s)")
        check(hits[point] > 0, f"crash point {point} was never hit")
    finish()


main()
