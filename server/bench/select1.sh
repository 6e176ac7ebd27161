#!/usr/bin/env bash
# Benchmark (not a test): SELECT 1 over the extended protocol (pgbench -M prepared), farmdb
# against PostgreSQL 15 on the same machine in the same run; prints both TPS and the ratio and
# appends the run to RESULTS.md beside this script.
#
#   server/bench/select1.sh path/to/farmdb        (use a release build)
#
# pgbench with -n and a custom script touches no tables (no vacuum, no scale probe), so farmdb
# needs nothing but SELECT 1. PostgreSQL runs from a scratch initdb (fsync=off) owned by the
# postgres user when this runs as root. Environment: FARMDB_BENCH_SECONDS (default 15).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 path/to/farmdb" >&2; exit 2; }
farmdb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
pgbin=/usr/lib/postgresql/15/bin
seconds=${FARMDB_BENCH_SECONDS:-15}
clients=8
threads=2
py=/usr/bin/python3

work=$(mktemp -d /tmp/farmdb-select1.XXXXXX)
chmod 755 "$work"
farmdb_pid=""
pg_started=""
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  if [ -n "$farmdb_pid" ]; then kill -TERM "$farmdb_pid" 2>/dev/null || true; wait "$farmdb_pid" 2>/dev/null || true; fi
  if [ -n "$pg_started" ]; then as_pg "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# farmdb: port 0, the ready line tells the port.
mkfifo "$work/ready"
"$farmdb" -p 0 -D "$work/farmdb" --log-level warn >"$work/ready" 2>"$work/farmdb.log" &
farmdb_pid=$!
read -r -t 30 ready <"$work/ready" || { echo "farmdb did not start:" >&2; cat "$work/farmdb.log" >&2; exit 1; }
farmdb_port=${ready##*:}
farmdb_port=${farmdb_port%% *}

# PostgreSQL 15 from a scratch data directory.
pg_port=$(free_port)
if [ "$(id -u)" -eq 0 ]; then chown postgres "$work"; fi
as_pg "$pgbin/initdb" -D "$work/pg" -U postgres -A trust >/dev/null
as_pg "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
pg_started=1

run() {  # run PORT -> tps
  pgbench -n -M prepared -c "$clients" -j "$threads" -T "$seconds" -f "$here/select1.sql" \
    -h 127.0.0.1 -p "$1" -U postgres postgres 2>&1 | tee -a "$work/pgbench.log" |
    sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p'
}
command="pgbench -n -M prepared -c $clients -j $threads -T $seconds -f select1.sql"
farmdb_tps=$(run "$farmdb_port")
pg_tps=$(run "$pg_port")
if [ -z "$farmdb_tps" ] || [ -z "$pg_tps" ]; then
  echo "pgbench failed:" >&2
  cat "$work/pgbench.log" >&2
  exit 1
fi
ratio=$("$py" -c "print(f'{$farmdb_tps / $pg_tps:.2f}')")
echo "farmdb:        $farmdb_tps tps"
echo "PostgreSQL 15: $pg_tps tps"
echo "ratio farmdb/PostgreSQL: $ratio"

results="$here/RESULTS.md"
if [ ! -f "$results" ]; then
  cat >"$results" <<'HEADER'
# server/bench/select1.sh results

SELECT 1 through the extended protocol (`pgbench -M prepared`), farmdb (release build) and a
scratch PostgreSQL 15 (fsync=off) run one after the other on the same machine in one run.
Runs are appended by the script; compare ratios, not absolute numbers, across machines. The
development machine is shared with parallel builds, so single runs there are noisy.

| date (UTC) | machine | command | farmdb tps | PostgreSQL tps | farmdb/PostgreSQL |
|---|---|---|---|---|---|
HEADER
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
machine="$(nproc) cores, ${cpu:-unknown CPU}, $(uname -sr)"
echo "| $(date -u '+%Y-%m-%d %H:%M') | $machine | \`$command\` | $farmdb_tps | $pg_tps | $ratio |" >>"$results"
