#!/usr/bin/python3
"""A multi-process cluster: three farmdb processes, each one machine, replicating over the tcp
fabric with their configuration in ZooKeeper (cluster/process_cluster.h). Each process's clock
carries an injected offset (farmdb.test_clock_offset_ns), so that processes on one host do not
read one clock. Checks:
  - nodes started apart wait, saying what for and refusing sessions with 57P03, until
    farmdb.replicas of them registered; then all three serve SQL;
  - DDL on one node is seen at once by the others; rows written on one are read on the others;
  - transfers from sessions on all three nodes at once: every acknowledged one is there, read
    from each node, and the money is conserved; nextval on all three never repeats;
  - the whole cluster restarts after SIGTERM (a member restarted alone waits, with 57P03, for
    the others) and after kill -9 of every node in the middle of transfers: every acknowledged
    transfer is there on each node, the money is conserved, nextval does not repeat;
  - farmctl status shows the configuration, commits coordinated on every node and region
    primaries on every node, every member holding its lease and none suspected; farmctl regions
    shows every replica equal to its primary once the
    cluster is quiet;
  - a joiner asking for other settings is refused, naming the setting; a node starting after
    the cluster formed is refused;
  - a node killed with kill -9: statements on the others fail with an error within the fabric's
    deadline or succeed, never hang, and the survivors keep serving;
  - SIGTERM stops the survivors.

Usage: cluster_test.py path/to/farmdb
The ZooKeeper server is ctest's (FARMDB_TEST_ZOOKEEPER_DIR), else one started here."""
import json, os, re, signal, subprocess, sys, tempfile, threading, time

import psycopg2

from script_checks import check, die_with_parent, finish

farmdb = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp(prefix="farmdb-cluster-test-")
zk_dir = os.environ.get("FARMDB_TEST_ZOOKEEPER_DIR")
own_zk = zk_dir is None
if own_zk:
    zk_dir = os.path.join(work, "zookeeper")
    subprocess.run([os.path.join(here, "..", "tools", "zookeeper.sh"), "start", "--fresh", zk_dir], check=True,
                   stdout=subprocess.DEVNULL)
with open(os.path.join(zk_dir, "address")) as f:
    zk_address = f.read().strip()
# A chroot of this run's own: tests share the run's ZooKeeper.
zookeeper = f"{zk_address}/farmdb-tests/cluster_test-{os.getpid()}"
OFFSETS = [0, 7_000_000, -4_000_000]  # ns added to each process's clock


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    def __init__(self, name, offset_ns=0, extra=(), port=0):
        self.name = name
        self.data = os.path.join(work, name)
        os.makedirs(self.data, exist_ok=True)
        self.log_path = os.path.join(work, name + ".log")
        self.log = open(self.log_path, "a")  # a restarted node's log follows its earlier runs
        self.proc = subprocess.Popen(
            [farmdb, "-p", str(port), "-D", self.data, "-o", "unix_socket_directories=",
             "-o", f"farmdb.zookeeper={zookeeper}", "-o", "farmdb.cluster=test",
             "-o", "farmdb.fabric_address=127.0.0.1:0", "-o", f"farmdb.test_clock_offset_ns={offset_ns}", *extra],
            stdout=subprocess.PIPE, stderr=self.log, text=True, preexec_fn=die_with_parent)
        self.port = None
        self.ready_line = None
        threading.Thread(target=self._read_ready, daemon=True).start()

    def _read_ready(self):
        line = self.proc.stdout.readline()
        m = re.search(r"127\.0\.0\.1:(\d+) ", line)
        if m:
            self.port = int(m.group(1))
        self.ready_line = line

    def wait_ready(self, timeout):
        deadline = time.time() + timeout
        while self.port is None and time.time() < deadline and self.proc.poll() is None:
            time.sleep(0.05)
        return self.port is not None

    def log_text(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def connect(self):
        c = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             connect_timeout=10)
        c.autocommit = True
        return c


def farmctl(*args):
    """tools/farmctl's --json output for `args`, and its exit status."""
    run = subprocess.run(["/usr/bin/python3", os.path.join(here, "..", "tools", "farmctl"), "--zookeeper", zookeeper,
                          "--cluster", "test", "--json", *args], capture_output=True, text=True, timeout=60)
    try:
        return json.loads(run.stdout), run.returncode
    except json.JSONDecodeError:
        return {"error": run.stderr}, run.returncode


def refusal_at(port):
    """The error a session at `port` gets, or None if it connects."""
    try:
        psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres", connect_timeout=10).close()
    except psycopg2.OperationalError as e:
        return str(e)
    return None


def one(node, sql, args=()):
    with node.connect() as c, c.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall() if cur.description else None


def transfers(nodes, seconds, until_killed=False):
    """Transfers of 1 between random accounts from two sessions per node, each recorded in the
    ledger with a nextval; returns the acknowledged (client, seq) pairs and ids. With
    `until_killed`, a session stops at its first error that is not 40001 (its node died)."""
    acked, errors, ids = [], [], []
    lock = threading.Lock()
    stop_at = time.time() + seconds
    clients = range(len(nodes) * 2) if not until_killed else range(100, 100 + len(nodes) * 2)

    def run(node, client):
        import random
        rng = random.Random(client)
        conn = node.connect()
        conn.autocommit = False
        cur = conn.cursor()
        seq = 0
        while time.time() < stop_at:
            seq += 1
            a, b = rng.sample(range(1, 21), 2)
            try:
                cur.execute("UPDATE accounts SET balance = balance - 1 WHERE id = %s", (a,))
                cur.execute("UPDATE accounts SET balance = balance + 1 WHERE id = %s", (b,))
                cur.execute("INSERT INTO ledger VALUES (%s, %s)", (client, seq))
                cur.execute("SELECT nextval('ids')")
                got = cur.fetchone()[0]
                conn.commit()
                with lock:
                    acked.append((client, seq))
                    ids.append(got)
            except psycopg2.Error as e:
                if until_killed and e.pgcode != "40001":
                    return
                conn.rollback()
                if e.pgcode != "40001":
                    with lock:
                        errors.append(f"{node.name}: {e.pgcode} {e}")
        conn.close()

    threads = [threading.Thread(target=run, args=(nodes[i % len(nodes)], c)) for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"transfers: {len(acked)} committed over {len(nodes)} nodes, {len(set(ids))} ids")
    check(not errors, f"transfers fail only with 40001: {errors[:3]}")
    check(len(acked) > 30, f"transfers committed on the cluster: {len(acked)}")
    return acked, ids


def check_transfers(nodes, acked, ids, when, exact=True):
    """Every node reads every acknowledged transfer (and, `exact`, no other), the money is
    conserved, and nextval hands out no id given before (the ids it takes join `ids`)."""
    check(len(set(ids)) == len(ids), f"{when}: nextval never repeated across nodes")
    for n in nodes:
        rows = set(one(n, "SELECT client, seq FROM ledger"))
        check(rows >= set(acked) and (not exact or rows == set(acked)),
              f"{when}: {n.name} reads every acknowledged transfer{' and no other' if exact else ''} "
              f"({len(rows)} rows, {len(acked)} acknowledged, {len(set(acked) - rows)} missing)")
        check(one(n, "SELECT sum(balance) FROM accounts") == [(20000,)], f"{when}: {n.name}: the money is conserved")
        fresh = one(n, "SELECT nextval('ids')")[0][0]
        check(fresh not in ids, f"{when}: {n.name}: nextval ({fresh}) hands out no id given before")
        ids.append(fresh)


nodes = []
try:
    # Two nodes alone wait for a third (farmdb.replicas defaults to 3).
    early_port = free_port()
    nodes = [Node("n0", OFFSETS[0], port=early_port), Node("n1", OFFSETS[1])]
    time.sleep(2)
    check(all(n.port is None and n.proc.poll() is None for n in nodes), "two nodes of three do not serve yet")
    refusal = refusal_at(early_port)
    check(refusal is not None and "the database system is starting up" in refusal,
          f"a node waiting for its cluster refuses sessions as PostgreSQL does while it starts (57P03): {refusal!r}")
    check(any("cluster_waiting" in n.log_text() and "of the 3 nodes it needs" in n.log_text() for n in nodes),
          "a waiting node says what it waits for")
    nodes.append(Node("n2", OFFSETS[2]))
    for n in nodes:
        check(n.wait_ready(60), f"{n.name} serves once three registered: {n.ready_line!r}\n{n.log_text()[-2000:]}")
    if not all(n.port for n in nodes):
        raise SystemExit(1)

    # DDL on one node, seen at once by the others.
    one(nodes[0], "CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL)")
    one(nodes[1], "INSERT INTO accounts SELECT g, 1000 FROM generate_series(1, 20) g")
    check(one(nodes[2], "SELECT count(*), sum(balance) FROM accounts") == [(20, 20000)],
          "rows inserted on one node are read on another")
    one(nodes[2], "CREATE TABLE ledger (client int, seq int, PRIMARY KEY (client, seq))")
    one(nodes[0], "CREATE SEQUENCE ids")

    # Transfers from sessions on every node at once.
    acked, ids = transfers(nodes, seconds=6)
    check_transfers(nodes, acked, ids, "transfers")

    # farmctl sees what each node did, and every replica equal to its primary once quiet.
    status, code = farmctl("status", "--interval", "0.5")
    members = status.get("members", [])
    print("farmctl status:", json.dumps(status)[:600])
    check(code == 0 and status.get("configuration") == 1 and status.get("cm") == 0 and len(members) == 3,
          f"farmctl status: configuration 1, CM 0, three members, all reachable: {status}")
    check(all(m["reachable"] and m["commits"] and m["commits"] > 0 for m in members),
          "farmctl status: every node coordinated commits")
    check(sum(m["aborts_by_reason"].get("lock_conflict", 0) + m["aborts_by_reason"].get("validation_failure", 0)
              for m in members) > 0,
          f"farmctl status: the transfers' conflicts show by reason: {[m['aborts_by_reason'] for m in members]}")
    check(all(m["primary_regions"] and m["primary_regions"] > 0 for m in members),
          "farmctl status: region primaries on every node")
    check(all(m["heard_ms_ago"] is not None and m["heard_ms_ago"] < 5000 for m in members if m["machine"] != 0),
          "farmctl status: the CM heard every member recently")
    check(all(m["lease_held"] for m in members) and not any(m["suspected"] for m in members),
          f"farmctl status: every member holds its lease, none is suspected: {members}")
    uncertainty = {m["machine"]: m["clock_uncertainty_ns"] for m in members}
    print(f"clock uncertainty, ns: {uncertainty}")
    check(uncertainty.get(0) == 0 and all(u is not None and 0 < u < 50_000_000 for m, u in uncertainty.items() if m),
          f"farmctl status: the CM's clock is master time, every other one synchronised within 50 ms: {uncertainty}")
    deadline = time.time() + 30
    while True:
        regions, code = farmctl("regions")
        listed = regions.get("regions", [])
        if code == 0 and listed and all(r["replicas_equal"] for r in listed) or time.time() > deadline:
            break
        time.sleep(1)
    check(code == 0 and listed and all(r["replicas_equal"] and len(r["replicas"]) == 3 for r in listed),
          f"farmctl regions: every region on all three nodes, each replica equal to its primary once quiet: "
          f"{[r for r in listed if not r['replicas_equal']][:3]}")

    # A clean stop of the whole cluster, then a restart: one member alone waits for the others.
    for n in nodes:
        n.proc.send_signal(signal.SIGTERM)
    for n in nodes:
        check(n.proc.wait(60) == 0, f"{n.name} stops at SIGTERM")
    nodes = [Node("n0", OFFSETS[0], port=early_port)]
    time.sleep(2)
    check(nodes[0].port is None and nodes[0].proc.poll() is None, "a member restarted alone does not serve yet")
    refusal = refusal_at(early_port)
    check(refusal is not None and "the database system is starting up" in refusal,
          f"a member waiting for the others to restart refuses sessions with 57P03: {refusal!r}")
    check("of its 3 members restarted" in nodes[0].log_text(), "a restarted member says what it waits for")
    nodes += [Node("n1", OFFSETS[1]), Node("n2", OFFSETS[2])]
    for n in nodes:
        check(n.wait_ready(120), f"{n.name} serves again after the restart: {n.ready_line!r}\n{n.log_text()[-2000:]}")
    if not all(n.port for n in nodes):
        raise SystemExit(1)
    check_transfers(nodes, acked, ids, "after a clean restart")

    # kill -9 of every node in the middle of transfers, then a restart.
    killer = threading.Timer(3, lambda: [n.proc.send_signal(signal.SIGKILL) for n in nodes])
    killer.start()
    more_acked, more_ids = transfers(nodes, seconds=20, until_killed=True)
    killer.join()
    for n in nodes:
        n.proc.wait()
    print(f"killed mid-transfers: {len(more_acked)} acknowledged before")
    nodes = [Node(n.name, OFFSETS[i]) for i, n in enumerate(nodes)]
    for n in nodes:
        check(n.wait_ready(120), f"{n.name} serves again after kill -9: {n.ready_line!r}\n{n.log_text()[-2000:]}")
    if not all(n.port for n in nodes):
        raise SystemExit(1)
    check_transfers(nodes, acked + more_acked, ids + more_ids, "after kill -9 of every node", exact=False)

    # Joiners the cluster refuses.
    odd = Node("odd", extra=("-o", "farmdb.replicas=2"))
    check(odd.proc.wait(60) != 0 and "farmdb.replicas is 3 in cluster \"test\"; this node asks for 2" in odd.log_text(),
          f"a joiner asking for other settings is refused, naming the setting: {odd.log_text()[-500:]}")
    late = Node("late")
    check(late.proc.wait(60) != 0 and "formed without this node" in late.log_text(),
          f"a node starting after the cluster formed is refused: {late.log_text()[-500:]}")

    # kill -9 one node: the others answer within the deadline, with an error or a result.
    nodes[2].proc.send_signal(signal.SIGKILL)
    nodes[2].proc.wait()
    for n in nodes[:2]:
        began = time.time()
        outcome = "ok"
        try:
            one(n, "UPDATE accounts SET balance = balance WHERE id > 0")
        except psycopg2.Error as e:
            outcome = f"{e.pgcode} {str(e).strip()}"
        took = time.time() - began
        print(f"{n.name} after the kill: {outcome} in {took:.2f} s")
        check(took < 30, f"{n.name}: a statement after a node died returns within the deadline ({took:.1f} s, {outcome})")
        check(outcome == "ok" or outcome.startswith(("08006 ", "40003 ")),
              f"{n.name}: a failure for want of a node is 08006 (or 40003 for a commit), not an internal error: {outcome}")
        check(one(n, "SELECT 1") == [(1,)], f"{n.name} keeps serving after a node died")
    for n in nodes[:2]:
        n.proc.send_signal(signal.SIGTERM)
        check(n.proc.wait(60) == 0, f"{n.name} stops at SIGTERM")
finally:
    for n in nodes:
        if n.proc.poll() is None:
            n.proc.kill()
            n.proc.wait()
    if own_zk:
        subprocess.run([os.path.join(here, "..", "tools", "zookeeper.sh"), "stop", zk_dir])

import script_checks
if script_checks.failures:
    print(f"kept for inspection: {work}")
else:
    subprocess.run(["rm", "-rf", work])
finish()
