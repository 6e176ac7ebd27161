#!/usr/bin/python3
"""kill -9 and restart, over and over: a real farmdb under concurrent SQL transactions is killed
at random moments (each kill after at least 50 acknowledged commits, with transactions in
flight) and restarted on the same data directory. After each restart:
  - every commit a client was told of is there (its ledger row);
  - no transaction is there in part: every account's balance is what the ledger says, and every
    COPY batch has all its rows or none;
  - the money is conserved, and nextval never handed out an id twice (no client met a duplicate
    key on the ledger's bigserial id);
  - a row a killed transaction had locked can be updated at once.
Clients commit with synchronous_commit on and off (SET LOCAL): a process crash loses neither.

Usage: kill_restart_test.py path/to/farmdb [kills] [machines]"""
import os, random, re, signal, subprocess, sys, tempfile, threading, time

import psycopg2

from script_checks import check, die_with_parent, finish

farmdb = sys.argv[1]
KILLS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
MACHINES = int(sys.argv[3]) if len(sys.argv) > 3 else 1
ACCOUNTS = 20
CLIENTS = 4
COPY_ROWS = 200


def start(data):
    server = subprocess.Popen([farmdb, "-p", "0", "-D", data, "--log-level", "warn", "-o", "unix_socket_directories=",
                               "-o", f"farmdb.machines={MACHINES}"], stdout=subprocess.PIPE, text=True,
                               preexec_fn=die_with_parent)
    ready = server.stdout.readline()
    m = re.search(r"127\.0\.0\.1:(\d+) ", ready)
    if m is None:
        server.kill()
        sys.exit(f"FAIL: farmdb did not start: {ready!r} (exit {server.wait()})")
    return server, int(m.group(1))


def connect(port):
    return psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")


class Client(threading.Thread):
    """Transfers between accounts, each with its ledger row, until the server goes away; client 0
    also loads COPY batches. Records what it was told committed."""

    def __init__(self, port, number, rng):
        super().__init__(daemon=True)
        self.port, self.number, self.rng = port, number, rng
        self.acked = []          # (client, seq) of committed transfers
        self.batches = []        # COPY batches committed
        self.duplicate_ids = 0   # a 23505 on the ledger's id: nextval repeated itself
        self.unexpected = []

    def run(self):
        try:
            conn = connect(self.port)
        except psycopg2.Error:
            return
        cur = conn.cursor()
        seq = 0
        while True:
            seq += 1
            a, b = self.rng.sample(range(ACCOUNTS), 2)
            amount = self.rng.randint(1, 50)
            try:
                if self.number == 0 and self.rng.random() < 0.1:
                    batch = f"{self.number}-{seq}"
                    cur.execute("BEGIN")
                    rows = "".join(f"{batch}\t{i}\n" for i in range(COPY_ROWS))
                    import io
                    cur.copy_from(io.StringIO(rows), "bulk", columns=("batch", "n"))
                    cur.execute("COMMIT")
                    self.batches.append(batch)
                    continue
                cur.execute("BEGIN")
                if self.rng.random() < 0.5:
                    cur.execute("SET LOCAL synchronous_commit = off")
                cur.execute("UPDATE accounts SET balance = balance - %s WHERE id = %s", (amount, a))
                cur.execute("UPDATE accounts SET balance = balance + %s WHERE id = %s", (amount, b))
                cur.execute("INSERT INTO ledger (client, seq, src, dst, amount) VALUES (%s, %s, %s, %s, %s)",
                            (self.number, seq, a, b, amount))
                cur.execute("COMMIT")
                self.acked.append((self.number, seq))
            except psycopg2.Error as e:
                if e.pgcode == "23505":
                    self.duplicate_ids += 1
                if e.pgcode in ("40001", "23505"):
                    try:
                        conn.rollback()
                    except psycopg2.Error:
                        return
                    continue
                if e.pgcode is not None and e.pgcode not in ("57P01", "08006", "08003"):
                    self.unexpected.append(f"{e.pgcode}: {e}")
                return  # the server died (or the connection did)


def verify(port, acked, batches, run):
    conn = connect(port)
    cur = conn.cursor()
    cur.execute("SELECT sum(balance), count(*) FROM accounts")
    total, count = cur.fetchone()
    check((total, count) == (ACCOUNTS * 1000, ACCOUNTS), f"run {run}: money conserved ({total}, {count} accounts)")
    cur.execute("SELECT client, seq, src, dst, amount FROM ledger")
    ledger = cur.fetchall()
    present = {(c, s) for c, s, _, _, _ in ledger}
    lost = [x for x in acked if x not in present]
    check(not lost, f"run {run}: {len(lost)} acknowledged transfers lost, e.g. {lost[:3]}")
    expected = [1000] * ACCOUNTS
    for _, _, src, dst, amount in ledger:
        expected[src] -= amount
        expected[dst] += amount
    cur.execute("SELECT id, balance FROM accounts ORDER BY id")
    balances = [b for _, b in cur.fetchall()]
    check(balances == expected, f"run {run}: balances match the ledger (a transaction is there in part)")
    cur.execute("SELECT batch, count(*) FROM bulk GROUP BY batch")
    counts = dict(cur.fetchall())
    check(all(n == COPY_ROWS for n in counts.values()), f"run {run}: a COPY batch is there in part: {counts}")
    missing = [b for b in batches if b not in counts]
    check(not missing, f"run {run}: acknowledged COPY batches lost: {missing[:3]}")
    # Rows a killed transaction had locked take updates at once.
    cur.execute("UPDATE accounts SET balance = balance WHERE true")
    conn.commit()
    conn.close()
    return len(ledger)


def main():
    rng = random.Random(int(os.environ.get("FARMDB_SEED", "1")))
    with tempfile.TemporaryDirectory(prefix="farmdb-kill-") as tmp:
        data = os.path.join(tmp, "data")
        server, port = start(data)
        conn = connect(port)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("CREATE TABLE accounts (id int PRIMARY KEY, balance bigint NOT NULL)")
        cur.execute("INSERT INTO accounts SELECT g, 1000 FROM generate_series(0, %s) g", (ACCOUNTS - 1,))
        cur.execute("CREATE TABLE ledger (id bigserial PRIMARY KEY, client int, seq int, src int, dst int, amount int)")
        cur.execute("CREATE TABLE bulk (batch text, n int)")
        conn.close()
        acked, batches, duplicates, unexpected = [], [], 0, []
        started = time.monotonic()
        for run in range(1, KILLS + 1):
            clients = [Client(port, run * 100 + c, random.Random(rng.random())) for c in range(CLIENTS)]
            for c in clients:
                c.start()
            # At least 50 acknowledged commits in this run, then a random moment.
            deadline = time.monotonic() + 60
            while sum(len(c.acked) for c in clients) < 50 and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.05))
            server.send_signal(signal.SIGKILL)
            server.wait()
            for c in clients:
                c.join(timeout=30)
            this_run = sum(len(c.acked) for c in clients)
            check(this_run >= 50, f"run {run}: {this_run} acknowledged commits before the kill")
            for c in clients:
                acked += c.acked
                batches += c.batches
                duplicates += c.duplicate_ids
                unexpected += c.unexpected
            server, port = start(data)
            rows = verify(port, acked, batches, run)
            print(f"run {run}: {this_run} acknowledged, {rows} ledger rows in all", flush=True)
        check(duplicates == 0, f"nextval handed out ids twice ({duplicates} duplicate keys)")
        check(not unexpected, f"unexpected errors: {unexpected[:3]}")
        server.terminate()
        check(server.wait(timeout=60) == 0, "SIGTERM stops the server cleanly")
        print(f"{KILLS} kills on {MACHINES} machine(s), {len(acked)} acknowledged commits in "
              f"{time.monotonic() - started:.0f} s")
    finish()


main()
