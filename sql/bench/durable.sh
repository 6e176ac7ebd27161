#!/usr/bin/env bash
# Benchmark (not a test): pgbench TPC-B-like (-M prepared, 8 clients) against farmdb and
# PostgreSQL 15 with both servers' data on the same disk file system (not tmpfs) and both
# durable: PostgreSQL with its defaults (fsync on), farmdb with its log and checkpoints, each
# with synchronous_commit on and then off (SET by PGOPTIONS). Paired rounds as in paired.sh (the
# idle server stopped, the order alternating). Also prints pg_test_fsync's fdatasync figure for
# that disk. Prints Markdown; nothing is written to RESULTS.md.
#
#   sql/bench/durable.sh path/to/farmdb        (use a release build)
#
# Environment: FARMDB_BENCH_DIR (default /var/tmp, which must be a disk file system),
# FARMDB_BENCH_SECONDS (20), FARMDB_BENCH_ROUNDS (4), FARMDB_BENCH_CLIENTS (8),
# FARMDB_BENCH_SCALE (the clients).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 path/to/farmdb" >&2; exit 2; }
farmdb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
export FARMDB_BENCH_DIR=${FARMDB_BENCH_DIR:-/var/tmp}
# shellcheck source=../../tools/bench/servers.sh
. "$here/../../tools/bench/servers.sh"
seconds=${FARMDB_BENCH_SECONDS:-20}
rounds=${FARMDB_BENCH_ROUNDS:-4}
clients=${FARMDB_BENCH_CLIENTS:-8}
scale=${FARMDB_BENCH_SCALE:-$clients}
pgbench=$bench_pgbin/pgbench

fs_type=$(stat -f -c %T "$FARMDB_BENCH_DIR")
[ "$fs_type" != tmpfs ] || { echo "$FARMDB_BENCH_DIR is a tmpfs: durability on it means nothing" >&2; exit 2; }
bench_pg_base=()      # PostgreSQL's defaults: fsync on
bench_farmdb_base=()  # farmdb's defaults: synchronous_commit on
bench_init
bench_start_farmdb "$farmdb"
bench_start_postgres
for port in "$farmdb_port" "$pg_port"; do
  "$pgbench" -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q postgres >"$bench_work/init.out" 2>&1 ||
    { cat "$bench_work/init.out" >&2; exit 1; }
done
fsync_line=$("$bench_pgbin/pg_test_fsync" -s 2 -f "$bench_work/fsync.test" 2>/dev/null | grep -m1 '^ *fdatasync' || true)

# measure SERVER -> "tps server-CPU-us-per-transaction", the other server stopped meanwhile.
measure() {
  local server=$1 port options="-c synchronous_commit=$sync" out=$bench_work/run.out
  if [ "$server" = farmdb ]; then
    port=$farmdb_port options="$options -c default_transaction_isolation=read\\ committed"
  else
    port=$pg_port
  fi
  bench_alone "$server" env PGOPTIONS="$options" "$pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared \
    -c "$clients" -j 2 -T "$seconds" --max-tries 100 postgres >"$out" 2>&1 ||
    { cat "$out" >&2; echo "pgbench failed against $server" >&2; exit 1; }
  awk -v ticks="$alone_ticks" -v hz="$(getconf CLK_TCK)" '
    /^number of transactions actually processed:/ { n = $6 }
    /^tps = .*without initial connection time/ { tps = $3 }
    END { printf "%.0f %.0f\n", tps, ticks / hz * 1e6 / n }' "$out"
}

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine), commit $(git -C "$here" rev-parse --short HEAD):"
echo "TPC-B-like, scale $scale, $clients clients, -M prepared, TCP, ${seconds} s per run; both servers' data on"
echo "$FARMDB_BENCH_DIR ($fs_type); PostgreSQL 15 with its defaults; farmdb READ COMMITTED (PostgreSQL's default)."
echo "pg_test_fsync on that disk: ${fsync_line:-n/a}"
for sync in on off; do
  echo
  echo "synchronous_commit=$sync on both:"
  echo
  echo "| round | order | farmdb tps | PostgreSQL tps | ratio | server CPU µs per tx, farmdb / PostgreSQL |"
  echo "|---|---|---|---|---|---|"
  ratios=()
  for round in $(seq "$rounds"); do
    bench_pair "$round"
    read -r f_tps f_cpu <<<"$pair_farmdb"
    read -r p_tps p_cpu <<<"$pair_postgres"
    ratio=$(bench_ratio "$f_tps" "$p_tps")
    ratios+=("$ratio")
    echo "| $round | $pair_order | $f_tps | $p_tps | ${ratio}x | $f_cpu / $p_cpu |"
  done
  echo
  echo "Median ratio, synchronous_commit=$sync: $(bench_median "${ratios[@]}")x"
done
