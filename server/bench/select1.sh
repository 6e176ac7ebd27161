#!/usr/bin/env bash
# Benchmark (not a test): SELECT 1 over the extended protocol (pgbench -M prepared), farmdb
# against PostgreSQL 15 on the same machine in the same run; prints both TPS and the ratio and
# puts the run in RESULTS.md's table beside this script, in place of the run there.
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
# shellcheck source=../../tools/bench/servers.sh
. "$here/../../tools/bench/servers.sh"
seconds=${FARMDB_BENCH_SECONDS:-15}
clients=8
threads=2

bench_init
bench_start_farmdb "$farmdb"
bench_start_postgres

run() {  # run PORT -> tps
  pgbench -n -M prepared -c "$clients" -j "$threads" -T "$seconds" -f "$here/select1.sql" \
    -h 127.0.0.1 -p "$1" -U postgres postgres 2>&1 | tee -a "$bench_work/pgbench.log" |
    sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p'
}
command="pgbench -n -M prepared -c $clients -j $threads -T $seconds -f select1.sql"
farmdb_tps=$(run "$farmdb_port")
pg_tps=$(run "$pg_port")
if [ -z "$farmdb_tps" ] || [ -z "$pg_tps" ]; then
  echo "pgbench failed:" >&2
  cat "$bench_work/pgbench.log" >&2
  exit 1
fi
ratio=$(bench_ratio "$farmdb_tps" "$pg_tps")
echo "farmdb:        $farmdb_tps tps"
echo "PostgreSQL 15: $pg_tps tps"
echo "ratio farmdb/PostgreSQL: $ratio"

# The table in RESULTS.md holds the latest run: its row replaces the rows there.
results="$here/RESULTS.md"
row="| $(date -u '+%Y-%m-%d %H:%M') | $(git -C "$here" rev-parse --short HEAD) | $(bench_machine) | \`$command\` | $farmdb_tps | $pg_tps | $ratio |"
awk -v row="$row" '
  !done && /^\|---/ { print; print row; skipping = 1; done = 1; next }
  skipping && /^\| [0-9]/ { next }
  { skipping = 0; print }' "$results" >"$results.new"
mv "$results.new" "$results"
