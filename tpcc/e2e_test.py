#!/usr/bin/python3
"""TPC-C end to end, run by regress/protocol/harness.py (suite tpcc) against farmdb or
PostgreSQL 15, whose address comes in PGHOST/PGPORT/PGUSER/PGDATABASE:

1. `tpcc load`: one warehouse over two connections, with a tenth of TPC-C's items and customers
   (10,000 and 300 per district): the full 600,000 rows take five minutes to load into an ASan
   build of farmdb on two cores, a tenth of that takes thirty seconds, and every population
   rule but the counts still holds.
2. `tpcc run`: the full mix over six connections for a few seconds at the server's default
   isolation (farmdb SERIALIZABLE, PostgreSQL READ COMMITTED, as in the side-by-side), which
   must end with every consistency condition passing; the timeline PNG must be written.
3. The checks must be able to fail: a district's YTD nudged by a cent must fail condition 1,
   and a new_order row deleted from the middle of a district's range must fail conditions 3
   and 5.

usage: e2e_test.py TPCC_BIN WORK_DIR
"""

import pathlib
import subprocess
import sys

RUN_ARGS = ["-c", "6", "--warmup", "1", "--duration", "6"]


def Tpcc(binary, *args, timeout=600):
    print("running: tpcc", " ".join(args), flush=True)
    run = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
    print(run.stdout, end="")
    print(run.stderr, end="", file=sys.stderr)
    return run


def Psql(sql):
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True, timeout=120)


def PsqlValue(sql):
    run = subprocess.run(["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql], check=True,
                         capture_output=True, text=True, timeout=120)
    return run.stdout.strip()


def main():
    binary, work = sys.argv[1], pathlib.Path(sys.argv[2])
    failures = []

    load = Tpcc(binary, "load", "-w", "1", "-c", "2", "--items", "10000", "--customers", "300")
    if load.returncode != 0:
        return [f"tpcc load exited {load.returncode}"]

    png = work / "tpcc_timeline.png"
    run = Tpcc(binary, "run", *RUN_ARGS, "--log", str(work / "tpcc_intervals.tsv"), "--plot", str(png),
               "--summary", str(work / "tpcc_summary.txt"))
    if run.returncode != 0:
        failures.append(f"tpcc run exited {run.returncode}")
    if run.stdout.count("  pass  condition") != 5:
        failures.append("tpcc run did not report five passing consistency conditions")
    summary = dict(line.split("=", 1) for line in (work / "tpcc_summary.txt").read_text().splitlines())
    if float(summary.get("NewOrder_committed", "0")) <= 0:
        failures.append(f"no New-Order committed: {summary}")
    if not png.exists() or png.read_bytes()[:8] != b"\x89PNG\r\n\x1a\n":
        failures.append(f"no timeline PNG at {png}")

    # Checks that cannot fail check nothing: break conditions by hand.
    Psql("UPDATE district SET d_ytd = d_ytd + 0.01 WHERE d_w_id = 1 AND d_id = 1")
    check = Tpcc(binary, "check")
    if check.returncode != 1 or "FAIL  condition 1" not in check.stdout:
        failures.append("condition 1 did not fail after d_ytd was changed by hand")
    Psql("UPDATE district SET d_ytd = d_ytd - 0.01 WHERE d_w_id = 1 AND d_id = 1")
    middle = PsqlValue("SELECT min(no_o_id) + 1 FROM new_order WHERE no_w_id = 1 AND no_d_id = 2")
    Psql(f"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = {int(middle)}")
    check = Tpcc(binary, "check")
    want = {1: "pass", 2: "pass", 3: "FAIL", 4: "pass", 5: "FAIL"}
    if check.returncode != 1 or any(f"{v}  condition {k}" not in check.stdout for k, v in want.items()):
        failures.append("after a new_order row was deleted, want conditions 3 and 5 to fail, the rest to pass")
    return failures


if __name__ == "__main__":
    failures = main()
    for f in failures:
        print(f"FAILED: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)
