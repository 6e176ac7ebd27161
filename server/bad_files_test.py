#!/usr/bin/python3
"""A damaged data directory gets a clear refusal, never wrong data: farmdb with a corrupt or
truncated state file, a state file of another format version, a truncated region image, a
region image whose data is damaged (found with farmdb.verify_images, as after a reboot), a
missing log segment or region file, or a data directory made with other settings, refuses to
start (exit 1) with a message naming the file (or the setting) and what is wrong. The same
directory, repaired, starts and has every row.

Usage: bad_files_test.py path/to/farmdb"""
import os, re, shutil, subprocess, sys, tempfile

import psycopg2

from script_checks import check, die_with_parent, finish

farmdb = sys.argv[1]


def run(data, *extra):
    """Starts farmdb; returns (port, process) once ready, or (None, stderr) if it exits."""
    server = subprocess.Popen([farmdb, "-p", "0", "-D", data, "--log-level", "warn", "-o", "unix_socket_directories=",
                               *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=die_with_parent)
    ready = server.stdout.readline()
    m = re.search(r"127\.0\.0\.1:(\d+) ", ready)
    if m is None:
        server.wait(timeout=60)
        return None, server.stderr.read(), server.returncode
    return int(m.group(1)), server, 0


def stop(server):
    server.terminate()
    server.wait(timeout=60)


def refused(data, what, expect, *extra):
    port, err, rc = run(data, *extra)
    if port is not None:
        stop(err)
        check(False, f"{what}: farmdb started")
        return
    check(rc == 1, f"{what}: exit {rc}")
    check(re.search(expect, err) is not None, f"{what}: the message names it ({expect!r}): {err.strip()[-300:]}")


def rows(port):
    conn = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    cur = conn.cursor()
    cur.execute("SELECT count(*), sum(a) FROM t")
    got = cur.fetchone()
    conn.close()
    return got


def main():
    with tempfile.TemporaryDirectory(prefix="farmdb-badfiles-") as tmp:
        data = os.path.join(tmp, "data")
        port, server, _ = run(data)
        conn = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute("CREATE TABLE t (a int PRIMARY KEY, b text)")
        cur.execute("INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g")
        cur.execute("CHECKPOINT")
        cur.execute("INSERT INTO t SELECT g, 'y' FROM generate_series(20001, 20100) g")
        conn.close()
        stop(server)
        expected = (20100, 20100 * 20101 // 2)
        m0 = os.path.join(data, "cluster", "m0")
        good = os.path.join(tmp, "good")
        shutil.copytree(data, good)

        def restore():
            shutil.rmtree(data)
            shutil.copytree(good, data)

        state = os.path.join(m0, "machine.state")
        text = open(state).read()
        with open(state, "w") as f:
            f.write(text.replace("next_region", "next_regioN"))
        refused(data, "a corrupt state file", r"machine\.state.*checksum")
        restore()
        with open(state, "w") as f:
            f.write(text[: len(text) // 2])
        refused(data, "a truncated state file", r"machine\.state.*(checksum|cut short)")
        restore()
        with open(state, "w") as f:
            f.write(text.replace("farmdb-machine-state 1", "farmdb-machine-state 9"))
        refused(data, "a state file of another format", r"machine\.state")
        restore()
        region = os.path.join(m0, "region-1")
        with open(region, "r+b") as f:
            f.truncate(os.path.getsize(region) - 100)
        refused(data, "a truncated region image", r"region-1")
        restore()
        with open(region, "r+b") as f:
            f.seek(4096 + 123)
            byte = f.read(1)
            f.seek(4096 + 123)
            f.write(bytes([byte[0] ^ 0x40]))
        refused(data, "a region image with damaged data", r"region-1.*checksum", "-o", "farmdb.verify_images=on")
        restore()
        os.remove(region)
        refused(data, "a missing region image", r"region-1")
        restore()
        wal = os.path.join(m0, "wal")
        segments = sorted(os.listdir(wal))
        os.remove(os.path.join(wal, segments[0]))
        refused(data, "a missing log segment", r"wal/" + segments[0])
        restore()
        refused(data, "another farmdb.machines than the directory was made with", r"farmdb\.machines=1",
                "-o", "farmdb.machines=3")
        port, server, _ = run(data)
        check(port is not None, "the repaired directory starts")
        if port is not None:
            check(rows(port) == expected, "and has every committed row")
            stop(server)
    finish()


main()
