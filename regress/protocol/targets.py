#!/usr/bin/python3
"""Targets for the end-to-end harness: a farmdb process or a scratch PostgreSQL 15 cluster,
each with one role per authentication method, started and stopped cleanly (see harness.py).

Not thread-safe: one harness run owns one target.
"""

import ctypes
import os
import pathlib
import pwd
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

PG_BIN = pathlib.Path("/usr/lib/postgresql/15/bin")
READY_RE = re.compile(rb"^farmdb ready to accept connections on ([0-9.]+):(\d+) \(pid (\d+)\)$")
START_TIMEOUT_S = 60  # an ASan build starts slowly on a loaded 2-core machine
STOP_TIMEOUT_S = 30

# One role per authentication method; the same names, passwords and rules on both targets.
# (env-var prefix, role, password or None, pg_hba method)
ROLES = [
    ("TRUST", "postgres", None, "trust"),
    ("PASSWORD", "e2e_password", "cleartext-pw", "password"),
    ("MD5", "e2e_md5", "md5-pw", "md5"),
    ("SCRAM", "e2e_scram", "scram-pw", "scram-sha-256"),
    ("REJECT", "e2e_reject", "reject-pw", "reject"),
]


class HarnessError(Exception):
    pass


def DieWithParent():
    """preexec_fn: the kernel kills the server if the harness dies (even by SIGKILL from a CTest
    timeout), so nothing is ever left running."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def RequireFile(path, why):
    if not pathlib.Path(path).exists():
        raise HarnessError(f"missing dependency: {path} ({why})")


def FreePort():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def TailOf(path, lines=60):
    try:
        return "\n".join(pathlib.Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class FarmdbTarget:
    """A farmdb process on a temporary data directory."""

    name = "farmdb"

    def __init__(self, binary, work_dir):
        RequireFile(binary, "the farmdb server binary (--farmdb-bin)")
        self.binary = pathlib.Path(binary).resolve()
        self.dir = work_dir / "farmdb"
        self.data_dir = self.dir / "data"
        self.log_path = self.dir / "farmdb.log"
        self.proc = None
        self.drain = None
        self.stdout_lines = []
        self.host = "127.0.0.1"
        self.port = None

    def WriteConfig(self):
        lines = ["# written by regress/protocol/harness.py", "listen_addresses = '127.0.0.1'",
                 "database postgres", "database template1"]
        for _, role, password, _ in ROLES:
            extra = " superuser" if role == "postgres" else ""
            pw = f" password '{password}'" if password else ""
            lines.append(f"role {role}{pw}{extra}")
        for _, role, _, method in ROLES:
            lines.append(f"host all {role} 127.0.0.1/32 {method}")
        config = self.dir / "farmdb.conf"
        config.write_text("\n".join(lines) + "\n")
        return config

    def Start(self):
        self.dir.mkdir(parents=True)
        config = self.WriteConfig()
        log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(self.binary), "--port", "0", "--data-dir", str(self.data_dir),
             "--config", str(config)],
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, preexec_fn=DieWithParent)
        log.close()
        ready = self.stdout_lines
        done = threading.Event()

        def Drain():  # every stdout line, so the server never blocks on a full pipe
            for line in self.proc.stdout:
                ready.append(line.rstrip(b"\n"))
                done.set()
            done.set()

        self.drain = threading.Thread(target=Drain, daemon=True)
        self.drain.start()
        if not done.wait(START_TIMEOUT_S) or not ready:
            self.Kill()
            raise HarnessError(f"farmdb printed no ready line within {START_TIMEOUT_S}s "
                               f"(exit {self.proc.returncode}); log:\n{TailOf(self.log_path)}")
        m = READY_RE.match(ready[0])
        if not m:
            self.Kill()
            raise HarnessError(f"farmdb's first stdout line is not the ready line: {ready[0]!r}")
        if int(m.group(3)) != self.proc.pid:
            self.Kill()
            raise HarnessError(f"ready line pid {m.group(3).decode()} != child pid {self.proc.pid}")
        self.host, self.port = m.group(1).decode(), int(m.group(2))
        if self.port == 0:
            self.Kill()
            raise HarnessError("ready line shows port 0, not the port actually bound")
        if not (self.data_dir / "farmdb.pid").exists():
            self.Kill()
            raise HarnessError("farmdb is ready but wrote no farmdb.pid in its data directory")

    def Kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def Close(self, keep):
        """Kills the server; its directory is in the work directory, which the harness keeps."""
        self.Kill()

    def KeptDirs(self):
        return []

    def Stop(self):
        """SIGTERM; the contract is exit 0 and farmdb.pid removed."""
        if self.proc.poll() is not None:
            raise HarnessError(f"farmdb died during the suite (exit {self.proc.returncode}); "
                               f"log:\n{TailOf(self.log_path)}")
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.Kill()
            raise HarnessError(f"farmdb did not exit within {STOP_TIMEOUT_S}s of SIGTERM")
        self.drain.join(5)
        problems = []
        if len(self.stdout_lines) != 1:
            problems.append(f"stdout must hold exactly the ready line, got {self.stdout_lines!r}")
        if code != 0:
            problems.append(f"exit code {code} after SIGTERM (want 0)")
        if (self.data_dir / "farmdb.pid").exists():
            problems.append("farmdb.pid left in the data directory")
        if problems:
            raise HarnessError("unclean farmdb shutdown: " + "; ".join(problems) +
                               f"\nlog:\n{TailOf(self.log_path)}")


class PostgresTarget:
    """A scratch PostgreSQL 15 cluster, the oracle."""

    name = "postgres"

    def __init__(self):
        RequireFile(PG_BIN / "initdb", "PostgreSQL 15 server (Debian package postgresql-15)")
        # Not under the work directory: when we are root the server runs as the postgres user,
        # who may not be able to reach the checkout (a clone under /root or any 0700 directory).
        # A fresh directory in the system's temporary directory is reachable, and short enough
        # for the Unix socket's path (107 bytes at most).
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="farmdb-e2e-pg-"))
        self.socket_dir = self.dir / "socket"
        self.socket_dir.mkdir()
        self.data_dir = self.dir / "data"
        self.log_path = self.dir / "postgres.log"
        self.proc = None
        self.host = "127.0.0.1"
        self.port = None
        self.as_root = os.geteuid() == 0

    def AsPostgresUser(self, argv):
        """initdb refuses root: run it as the postgres OS user when we are root."""
        if self.as_root:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        return argv

    def DropToPostgresUser(self):
        """preexec_fn for the server: postgres itself (not a runuser wrapper) must be our child,
        so that our signals reach it and Kill() cannot orphan it."""
        if self.as_root:
            entry = pwd.getpwnam("postgres")
            os.setgroups([])
            os.setgid(entry.pw_gid)
            os.setuid(entry.pw_uid)
        DieWithParent()  # after setuid, which clears the parent-death signal

    def HbaLines(self):
        lines = ["local all postgres trust"]
        lines += [f"host all {role} 127.0.0.1/32 {method}" for _, role, _, method in ROLES]
        return "\n".join(lines) + "\n"

    def Start(self):
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
            shutil.chown(self.socket_dir, "postgres", "postgres")
        subprocess.run(self.AsPostgresUser([str(PG_BIN / "initdb"), "-D", str(self.data_dir), "-U",
                                 "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                                 "--no-sync"]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        (self.data_dir / "pg_hba.conf").write_text(self.HbaLines())
        self.port = FreePort()
        log = open(self.log_path, "wb")
        if self.as_root:
            shutil.chown(self.log_path, "postgres", "postgres")
        self.proc = subprocess.Popen(
            [str(PG_BIN / "postgres"), "-D", str(self.data_dir), "-p", str(self.port), "-k",
             str(self.socket_dir), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c",
             "full_page_writes=off"],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, preexec_fn=self.DropToPostgresUser)
        log.close()
        deadline = time.time() + START_TIMEOUT_S
        while True:
            probe = subprocess.run(["psql", "-X", "-h", str(self.socket_dir), "-p", str(self.port),
                                    "-U", "postgres", "-d", "postgres", "-c", "SELECT 1"],
                                   capture_output=True)
            if probe.returncode == 0:
                break
            if self.proc.poll() is not None or time.time() > deadline:
                self.Kill()
                raise HarnessError(f"postgres did not start; log:\n{TailOf(self.log_path)}")
            time.sleep(0.1)
        self.CreateRoles()

    def CreateRoles(self):
        sql = []
        for _, role, password, method in ROLES:
            if role == "postgres":
                continue
            # An md5 rule needs an md5 hash stored; the others use the scram default.
            encryption = "md5" if method == "md5" else "scram-sha-256"
            sql.append(f"SET password_encryption = '{encryption}';")
            sql.append(f"CREATE ROLE {role} LOGIN PASSWORD '{password}';")
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", str(self.socket_dir),
                        "-p", str(self.port), "-U", "postgres", "-d", "postgres", "-c", "\n".join(sql)],
                       check=True)

    def Kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def Close(self, keep):
        """Kills the server; removes its directory unless keep (a failed run: see KeptDirs)."""
        self.Kill()
        if not keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    def KeptDirs(self):
        return [self.dir]

    def Stop(self):
        if self.proc.poll() is not None:
            raise HarnessError(f"postgres died during the suite; log:\n{TailOf(self.log_path)}")
        self.proc.send_signal(signal.SIGINT)  # fast shutdown
        try:
            code = self.proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.Kill()
            raise HarnessError("postgres did not stop")
        if code != 0:
            raise HarnessError(f"postgres exited {code}; log:\n{TailOf(self.log_path)}")


def OpenIdleSession(target):
    """A session left open across the shutdown (see CheckSessionTerminated)."""
    try:
        import psycopg2
    except ImportError:
        raise HarnessError("missing dependency: psycopg2 for /usr/bin/python3 "
                           "(Debian package python3-psycopg2)")
    return psycopg2.connect(host=target.host, port=target.port, user="postgres",
                            dbname="postgres", connect_timeout=20)


def CheckSessionTerminated(conn):
    """Shutdown must end open sessions with FATAL 57P01, as PostgreSQL's fast shutdown does.
    The session is idle, so libpq has not read the ErrorResponse: read the socket itself."""
    data = b""
    try:
        while select.select([conn.fileno()], [], [], 10)[0]:
            chunk = os.read(conn.fileno(), 65536)
            if not chunk:
                break
            data += chunk
    except OSError as e:
        data += f"({e})".encode()
    finally:
        conn.close()
    want = [b"E", b"SFATAL\0", b"C57P01\0",
            b"Mterminating connection due to administrator command\0"]
    if not data.startswith(b"E") or not all(w in data for w in want):
        return [f"session open at shutdown: want ErrorResponse FATAL 57P01 'terminating "
                f"connection due to administrator command' then EOF, got {data!r}"]
    return []


def TargetEnv(target):
    env = dict(os.environ)
    env.update({"E2E_TARGET": target.name, "E2E_HOST": target.host, "E2E_PORT": str(target.port),
                "PGHOST": target.host, "PGPORT": str(target.port), "PGUSER": "postgres",
                "PGDATABASE": "postgres"})
    for prefix, role, password, _ in ROLES:
        env[f"E2E_{prefix}_USER"] = role
        env[f"E2E_{prefix}_PASSWORD"] = password or ""
    for var in ("PGPASSWORD", "PGSERVICE", "PGOPTIONS", "PGSSLMODE", "PGCLIENTENCODING", "PGTZ",
                "PGDATESTYLE", "PGAPPNAME", "PGCONNECT_TIMEOUT"):
        env.pop(var, None)
    env["PGPASSFILE"] = "/nonexistent/e2e-pgpass"  # never read a developer's ~/.pgpass
    env["LC_ALL"] = "C"
    return env
