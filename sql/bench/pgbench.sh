#!/usr/bin/env bash
# Benchmark (not a test): unmodified pgbench against farmdb and PostgreSQL 15
# (synchronous_commit=off, fsync=off) on the same machine in one run: `pgbench -i`, then the
# select-only script (-S) and the default TPC-B-like script, both with -M prepared and the same
# clients. Prints the figures and ratios and appends a row to RESULTS.md beside this script.
#
#   sql/bench/pgbench.sh path/to/farmdb        (use a release build)
#
# Environment: FARMDB_BENCH_SECONDS (default 30 per script), FARMDB_BENCH_CLIENTS (8),
# FARMDB_BENCH_SCALE (1), FARMDB_BENCH_MAX_TRIES (100).
#
# TPC-B-like runs with --max-tries: every transaction updates one of `scale` branch rows, so
# concurrent transactions conflict. PostgreSQL queues on the row lock; farmdb's optimistic
# commit aborts one of two conflicting transactions with 40001, which pgbench then retries
# (the FaRM answer: the application retries). The retry rate is reported beside the tps.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 path/to/farmdb" >&2; exit 2; }
farmdb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tools/bench/servers.sh
. "$here/../../tools/bench/servers.sh"
seconds=${FARMDB_BENCH_SECONDS:-30}
clients=${FARMDB_BENCH_CLIENTS:-8}
scale=${FARMDB_BENCH_SCALE:-1}
max_tries=${FARMDB_BENCH_MAX_TRIES:-100}
threads=2
pgbench=$bench_pgbin/pgbench

bench_init
bench_start_farmdb "$farmdb"
bench_start_postgres -c synchronous_commit=off

log="$bench_work/pgbench.log"
# pgbench_run PORT ARGS... -> the output, also appended to the log
pgbench_run() {
  local port=$1
  shift
  "$pgbench" -h 127.0.0.1 -p "$port" -U postgres "$@" postgres 2>&1 | tee -a "$log"
}
# field OUTPUT: tps, and for TPC-B the retried and failed percentages
tps_of() { sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$1"; }
retried_of() { sed -n 's/^number of transactions retried: [0-9]* (\([0-9.]*\)%)$/\1/p' <<<"$1"; }
failed_of() { sed -n 's/^number of failed transactions: [0-9]* (\([0-9.]*\)%)$/\1/p' <<<"$1"; }

declare -A select_tps tpcb_tps tpcb_retried tpcb_failed
for target in farmdb postgres; do
  if [ "$target" = farmdb ]; then port=$farmdb_port; else port=$pg_port; fi
  pgbench_run "$port" -i -s "$scale" -q >/dev/null || { cat "$log" >&2; exit 1; }
  out=$(pgbench_run "$port" -n -M prepared -S -c "$clients" -j "$threads" -T "$seconds")
  select_tps[$target]=$(tps_of "$out")
  out=$(pgbench_run "$port" -n -M prepared -c "$clients" -j "$threads" -T "$seconds" \
    --max-tries="$max_tries")
  tpcb_tps[$target]=$(tps_of "$out")
  tpcb_retried[$target]=$(retried_of "$out")
  tpcb_failed[$target]=$(failed_of "$out")
  if [ -z "${select_tps[$target]}" ] || [ -z "${tpcb_tps[$target]}" ]; then
    echo "pgbench failed against $target:" >&2
    cat "$log" >&2
    exit 1
  fi
done

select_ratio=$(bench_ratio "${select_tps[farmdb]}" "${select_tps[postgres]}")
tpcb_ratio=$(bench_ratio "${tpcb_tps[farmdb]}" "${tpcb_tps[postgres]}")
echo "select-only (-S):  farmdb ${select_tps[farmdb]} tps, PostgreSQL ${select_tps[postgres]} tps, ratio $select_ratio"
echo "TPC-B-like:        farmdb ${tpcb_tps[farmdb]} tps (retried ${tpcb_retried[farmdb]:-0}%, failed ${tpcb_failed[farmdb]:-0}%),"
echo "                   PostgreSQL ${tpcb_tps[postgres]} tps (retried ${tpcb_retried[postgres]:-0}%, failed ${tpcb_failed[postgres]:-0}%), ratio $tpcb_ratio"

results="$here/RESULTS.md"
if [ ! -f "$results" ]; then
  cat >"$results" <<'HEADER'
# sql/bench/pgbench.sh results

Unmodified pgbench 15 against farmdb (release build, single node) and a scratch PostgreSQL 15
(synchronous_commit=off, fsync=off), one after the other on the same machine in one run, same
scale and clients. Per target: `pgbench -i -s SCALE`, then
`pgbench -n -M prepared -S -c CLIENTS -j 2 -T SECONDS` (select-only) and
`pgbench -n -M prepared -c CLIENTS -j 2 -T SECONDS --max-tries=100` (TPC-B-like).
Runs are appended by `sql/bench/pgbench.sh build/release/server/farmdb` (or `./dev bench`);
compare ratios, not absolute numbers, across machines.

| date (UTC) | machine | scale, clients, seconds | select-only farmdb / PostgreSQL tps | ratio | TPC-B-like farmdb / PostgreSQL tps | ratio | farmdb retried / failed |
|---|---|---|---|---|---|---|---|
HEADER
fi
echo "| $(date -u '+%Y-%m-%d %H:%M') | $(bench_machine) | $scale, $clients, $seconds | ${select_tps[farmdb]} / ${select_tps[postgres]} | $select_ratio | ${tpcb_tps[farmdb]} / ${tpcb_tps[postgres]} | $tpcb_ratio | ${tpcb_retried[farmdb]:-0}% / ${tpcb_failed[farmdb]:-0}% |" >>"$results"
