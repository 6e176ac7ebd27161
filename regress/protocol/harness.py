#!/usr/bin/python3
"""End-to-end protocol test harness: starts a target server, runs one suite against it, stops it.

Targets:
  farmdb    the binary given by --farmdb-bin, with a temporary data directory and a config file
            (see /work/notes/server_contract.md) holding one role per authentication method;
            started with --port 0, the real port read from its ready line; stopped with SIGTERM,
            which must give exit code 0 and leave no farmdb.pid behind.
  postgres  a scratch PostgreSQL 15 cluster (initdb as the postgres OS user when run as root,
            fsync=off) on 127.0.0.1 and a free port, with equivalent roles and pg_hba.conf.

Suites (each gets the target's address and roles through E2E_* environment variables):
  psql      sql/*.sql run with psql, output diffed against expected/*.out (produced on
            PostgreSQL 15: --regenerate-expected), plus an ON_ERROR_STOP script and version
            strings checked by pattern.
  libpq     the libpq_test program (--libpq-bin).
  jdbc      JdbcTest.java compiled with javac into the work dir and run against pgjdbc.
  psycopg2  psycopg2_test.py.
  isolation ../isolation/isolation_test.py: concurrent-session isolation scenarios.
  tpcc      ../../tpcc/e2e_test.py with the tpcc program (--tpcc-bin): load, run, consistency checks.
  serve     start the target, print the environment, wait for Ctrl-C (manual exploration).

Exit code 0 only if the suite passed and the target stopped cleanly. A missing dependency is a
failure with a message, never a skip.
"""

import argparse
import difflib
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from targets import (FarmdbTarget, HarnessError, PostgresTarget, RequireFile, OpenIdleSession,
                     CheckSessionTerminated, TargetEnv)

HERE = pathlib.Path(__file__).resolve().parent
PGJDBC_JAR = pathlib.Path("/usr/share/java/postgresql.jar")


# ---- psql suite ------------------------------------------------------------------------------

PSQL_ARGS = ["psql", "-X", "-a", "-v", "ON_ERROR_STOP=1"]

# Outputs that legitimately differ between servers are checked by pattern, not diffed.
PATTERN_CHECKS = [
    ("SELECT version()", re.compile(r"^PostgreSQL 15\.\d+")),
    ("SHOW server_version", re.compile(r"^15\.\d+")),
    ("SHOW server_version_num", re.compile(r"^150\d{3}$")),
    ("SELECT current_setting('server_version_num')::int / 10000", re.compile(r"^15$")),
]


def PsqlSuite(target, args, env):
    RequireFile(shutil.which("psql") or "psql", "psql (Debian package postgresql-client-15)")
    failures = []
    results_dir = args.work_dir / "psql-results"
    results_dir.mkdir(exist_ok=True)
    for sql_path in sorted((HERE / "sql").glob("*.sql")):
        name = sql_path.stem
        returncode, output = MergedOutput(sql_path, env)
        expected_path = HERE / "expected" / f"{name}.out"
        if args.regenerate_expected:
            if returncode != 0:
                failures.append(f"{name}: psql exit {returncode} on the oracle:\n{output}")
                continue
            expected_path.write_text(output)
            print(f"psql {name}: expected output written to {expected_path}")
            continue
        (results_dir / f"{name}.out").write_text(output)
        expected = expected_path.read_text() if expected_path.exists() else None
        problems = []
        if returncode != 0:
            problems.append(f"psql exit code {returncode} (want 0)")
        if expected is None:
            problems.append(f"no expected output {expected_path}")
        elif output != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), output.splitlines(True),
                                                f"expected/{name}.out", f"{target.name}/{name}.out"))
            problems.append("output differs:\n" + diff)
        if problems:
            failures.append(f"{name}: " + "\n".join(problems))
        else:
            print(f"psql {name}: ok")
    failures += ErrorStopCheck(env) + PatternChecks(env)
    return failures


def MergedOutput(sql_path, env):
    """psql's stdout and stderr interleaved in order, as pg_regress records them."""
    with open(sql_path, "rb") as f:
        run = subprocess.run(PSQL_ARGS, stdin=f, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=120)
    return run.returncode, run.stdout.decode(errors="replace")


def ErrorStopCheck(env):
    """An error under ON_ERROR_STOP must stop the script with exit code 3 and the error text."""
    with open(HERE / "error_stop.sql", "rb") as f:  # no -a: echoed input would hold the markers
        run = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1"], stdin=f, env=env,
                             capture_output=True, timeout=120)
    out, err = run.stdout.decode(errors="replace"), run.stderr.decode(errors="replace")
    problems = []
    if run.returncode != 3:
        problems.append(f"exit code {run.returncode} (want 3)")
    if "ERROR:  division by zero" not in err:
        problems.append(f"stderr lacks 'ERROR:  division by zero': {err!r}")
    if "before_error" not in out:
        problems.append("the statement before the error did not run")
    if "same_line_after_error" in out or "next_line_after_error" in out:
        problems.append("statements after the error ran")
    if problems:
        return ["error_stop: " + "; ".join(problems) + f"\nstdout:\n{out}"]
    print("psql error_stop: ok")
    return []


def PatternChecks(env):
    failures = []
    for query, pattern in PATTERN_CHECKS:
        run = subprocess.run(["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", query],
                             env=env, capture_output=True, timeout=60)
        value = run.stdout.decode(errors="replace").strip()
        if run.returncode != 0 or not pattern.search(value):
            failures.append(f"pattern {query!r}: got {value!r} exit {run.returncode} "
                            f"{run.stderr.decode(errors='replace')!r}, want /{pattern.pattern}/")
        else:
            print(f"psql pattern {query!r}: ok ({value})")
    return failures


# ---- program suites --------------------------------------------------------------------------

def RunProgram(argv, env, timeout=150):
    print("running:", " ".join(argv), flush=True)
    try:
        run = subprocess.run(argv, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [f"{argv[0]} timed out after {timeout}s"]
    return [] if run.returncode == 0 else [f"{argv[-1]} exited {run.returncode}"]


def LibpqSuite(target, args, env):
    if not args.libpq_bin:
        raise HarnessError("--libpq-bin is required for the libpq suite")
    RequireFile(args.libpq_bin, "the libpq_test program (CMake target libpq_test)")
    return RunProgram([str(args.libpq_bin)], env)


def JdbcSuite(target, args, env):
    RequireFile(PGJDBC_JAR, "pgjdbc (Debian package libpostgresql-jdbc-java)")
    for tool in ("javac", "java"):
        if not shutil.which(tool):
            raise HarnessError(f"missing dependency: {tool} (Debian package default-jdk-headless)")
    classes = args.work_dir / "jdbc-classes"
    classes.mkdir(exist_ok=True)
    subprocess.run(["javac", "-encoding", "UTF-8", "-cp", str(PGJDBC_JAR), "-d", str(classes),
                    str(HERE / "JdbcTest.java")], check=True)
    # A fixed JVM time zone: the driver sends it as the TimeZone startup parameter.
    return RunProgram(["java", "-Duser.timezone=UTC", "-cp", f"{classes}:{PGJDBC_JAR}",
                       "JdbcTest"], env)


def RequirePsycopg2():
    probe = subprocess.run(["/usr/bin/python3", "-c", "import psycopg2"], capture_output=True)
    if probe.returncode != 0:
        raise HarnessError("missing dependency: psycopg2 for /usr/bin/python3 "
                           "(Debian package python3-psycopg2)")


def Psycopg2Suite(target, args, env):
    RequirePsycopg2()
    return RunProgram(["/usr/bin/python3", str(HERE / "psycopg2_test.py")], env)


def IsolationSuite(target, args, env):
    RequirePsycopg2()
    return RunProgram(["/usr/bin/python3", str(HERE.parent / "isolation" / "isolation_test.py")], env)


def TpccSuite(target, args, env):
    if not args.tpcc_bin:
        raise HarnessError("--tpcc-bin is required for the tpcc suite")
    RequireFile(args.tpcc_bin, "the tpcc program (CMake target tpcc)")
    # Loading one warehouse into an ASan build on a busy 2-core machine takes minutes.
    return RunProgram(["/usr/bin/python3", str(HERE.parent.parent / "tpcc" / "e2e_test.py"),
                       str(args.tpcc_bin), str(args.work_dir)], env, timeout=900)


def ServeSuite(target, args, env):
    for key in sorted(k for k in env if k.startswith("E2E_") or k.startswith("PG")):
        print(f"export {key}={env[key]!r}")
    print("serving; Ctrl-C to stop", flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    return []


SUITES = {"psql": PsqlSuite, "libpq": LibpqSuite, "jdbc": JdbcSuite, "psycopg2": Psycopg2Suite,
          "isolation": IsolationSuite, "tpcc": TpccSuite, "serve": ServeSuite}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=["farmdb", "postgres"], required=True)
    parser.add_argument("--farmdb-bin", type=pathlib.Path)
    parser.add_argument("--libpq-bin", type=pathlib.Path)
    parser.add_argument("--tpcc-bin", type=pathlib.Path)
    parser.add_argument("--work-dir", type=pathlib.Path,
                        help="where each run makes its scratch directory (default: the system "
                             "temporary directory); removed on success, kept on failure")
    parser.add_argument("--regenerate-expected", action="store_true",
                        help="psql suite on postgres only: rewrite expected/*.out")
    parser.add_argument("suite", choices=sorted(SUITES))
    args = parser.parse_args()
    # SIGTERM (e.g. a CTest timeout) and SIGINT unwind through the finally blocks, so the target
    # is stopped on the way out. SIGINT is set explicitly: a shell starts background jobs with it
    # ignored, and Python would keep it that way.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("harness: terminated"))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.regenerate_expected and args.target != "postgres":
        parser.error("expected outputs come from PostgreSQL 15 only: use --target postgres")
    if args.target == "farmdb" and not args.farmdb_bin:
        parser.error("--target farmdb needs --farmdb-bin PATH")

    # Each run gets a fresh directory of its own (under --work-dir if given), kept on failure.
    if args.work_dir is not None:
        args.work_dir.mkdir(parents=True, exist_ok=True)
    args.work_dir = pathlib.Path(tempfile.mkdtemp(prefix=f"{args.suite}-{args.target}-",
                                                  dir=args.work_dir))

    failures = []
    target = None
    try:
        target = (FarmdbTarget(args.farmdb_bin, args.work_dir) if args.target == "farmdb"
                  else PostgresTarget())
        target.Start()
        print(f"{target.name} up on {target.host}:{target.port}", flush=True)
        idle = None
        try:
            failures += SUITES[args.suite](target, args, TargetEnv(target))
            idle = OpenIdleSession(target)
        finally:
            try:
                target.Stop()
            except HarnessError as e:
                failures.append(str(e))
        if idle is not None:
            failures += CheckSessionTerminated(idle)
    except (HarnessError, subprocess.CalledProcessError) as e:
        failures.append(str(e))
    finally:
        if target is not None:
            target.Close(keep=bool(failures))

    if failures:
        kept = ", ".join(str(d) for d in [args.work_dir] + (target.KeptDirs() if target else []))
        print(f"\nFAILED: suite {args.suite} against {args.target} (kept: {kept})",
              file=sys.stderr)
        for failure in failures:
            print(f"- {failure}", file=sys.stderr)
        return 1
    print(f"PASSED: suite {args.suite} against {args.target}")
    shutil.rmtree(args.work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
