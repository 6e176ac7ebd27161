#!/usr/bin/python3
"""Smoke test of the farmdb executable's contract (notes/server_contract.md): --help documents
every flag and config key, the ready line, the flock'd farmdb.pid, -c/-o precedence, a clean
SIGTERM stop (exit 0, pid file removed), and the Unix-domain socket: reachable, left behind by a
killed server and taken over by the next. Usage: main_test.py path/to/farmdb"""
import os, re, signal, subprocess, sys, tempfile

import psycopg2

from script_checks import check, die_with_parent, finish

farmdb = sys.argv[1]


help_text = subprocess.run([farmdb, "--help"], capture_output=True, text=True, check=True).stdout
for item in ["--port", "--listen-addresses", "--data-dir", "--config", "--set", "--log-level",
             "--help", "--version", "port =", "listen_addresses =", "max_message_size =",
             "password_encryption =", "unix_socket_directories =", "role NAME", "host DATABASE USER",
             "local DATABASE USER", "database NAME"]:
    check(item in help_text, f"--help mentions {item}")
check(subprocess.run([farmdb, "--port", "x"], capture_output=True).returncode == 2,
      "bad flag exits 2")

with tempfile.TemporaryDirectory() as tmp:
    data = os.path.join(tmp, "data")
    conf = os.path.join(tmp, "farmdb.conf")
    with open(conf, "w") as f:
        f.write("port = 1\nrole postgres superuser\nrole alice password 'pw'\n"
                "host all alice 127.0.0.1/32 scram-sha-256\n"
                "host all all 127.0.0.1/32 trust\ndatabase app\n")
    # -p wins over the file's port; -o sets max_message_size.
    server = subprocess.Popen([farmdb, "-c", conf, "-p", "0", "-D", data, "-o",
                               "max_message_size=1MB", "--log-level", "warn"],
                              stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
    try:
        ready = server.stdout.readline()
        m = re.fullmatch(r"farmdb ready to accept connections on 127\.0\.0\.1:(\d+) \(pid (\d+)\)\n",
                         ready)
        check(m is not None, f"ready line format: {ready!r}")
        port, pid = int(m.group(1)), int(m.group(2))
        check(pid == server.pid, "ready line pid")
        check(port != 1, "-p 0 overrides the config file's port")
        with open(os.path.join(data, "farmdb.pid")) as f:
            check(f.read().strip() == str(server.pid), "farmdb.pid holds the pid")
        second = subprocess.run([farmdb, "-p", "0", "-D", data], capture_output=True, text=True)
        check(second.returncode == 1 and "in use" in second.stderr, "data dir is locked")
        conn = psycopg2.connect(host="127.0.0.1", port=port, user="alice", password="pw",
                                dbname="app")
        cur = conn.cursor()
        cur.execute("SELECT 1")
        check(cur.fetchone() == (1,), "SELECT 1 as alice over SCRAM")
        conn.close()
        try:
            psycopg2.connect(host="127.0.0.1", port=port, user="alice", password="no",
                             dbname="app")
            check(False, "wrong password refused")
        except psycopg2.OperationalError as e:
            check('password authentication failed for user "alice"' in str(e), "28P01 message")
        server.send_signal(signal.SIGTERM)
        check(server.wait(timeout=30) == 0, "SIGTERM exits 0")
        check(not os.path.exists(os.path.join(data, "farmdb.pid")), "farmdb.pid removed")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def start(args):
    """A server with ARGS; returns it and its port, read from the ready line."""
    server = subprocess.Popen([farmdb, "--log-level", "warn"] + args, stdout=subprocess.PIPE, text=True,
                              preexec_fn=die_with_parent)
    m = re.search(r":(\d+) \(pid", server.stdout.readline())
    return server, int(m.group(1)) if m else 0


def select_one_over_socket(directory, port):
    conn = psycopg2.connect(host=directory, port=port, user="postgres", dbname="postgres")
    cur = conn.cursor()
    cur.execute("SELECT 1")
    one = cur.fetchone()
    conn.close()
    return one == (1,)


with tempfile.TemporaryDirectory() as tmp:
    servers = []
    try:
        server, port = start(["-p", "0", "-D", os.path.join(tmp, "a"), "-o", f"unix_socket_directories={tmp}"])
        servers.append(server)
        socket_path = os.path.join(tmp, f".s.PGSQL.{port}")
        check(os.path.exists(socket_path), "the socket is in unix_socket_directories")
        check(select_one_over_socket(tmp, port), "SELECT 1 over the Unix-domain socket")
        server.kill()
        server.wait()
        check(os.path.exists(socket_path) and os.path.exists(socket_path + ".lock"),
              "a killed server leaves its socket and lock file")
        server, again = start(["-p", str(port), "-D", os.path.join(tmp, "b"), "-o",
                               f"unix_socket_directories={tmp}"])
        servers.append(server)
        check(again == port, "the next server starts on the same port")
        with open(socket_path + ".lock") as f:
            check(f.read().strip() == str(server.pid), "the next server takes over the lock file")
        check(select_one_over_socket(tmp, port), "SELECT 1 over the socket taken over")
        server.send_signal(signal.SIGTERM)
        check(server.wait(timeout=30) == 0, "SIGTERM exits 0")
        check(not os.path.exists(socket_path) and not os.path.exists(socket_path + ".lock"),
              "a stop removes the socket and its lock file")
    finally:
        for server in servers:
            if server.poll() is None:
                server.kill()
                server.wait()

finish()
