#!/usr/bin/env bash
# Benchmark (not a test): pgbench's TPC-B-like script against farmdb at READ COMMITTED and
# PostgreSQL 15 (synchronous_commit=off) in paired runs. Both servers are loaded once and stay up;
# each round runs farmdb and PostgreSQL one after the other, farmdb first in odd rounds and
# PostgreSQL first in even ones, with the server not being measured stopped (SIGSTOP), and
# reports the round's ratio of tps and each server's CPU per transaction. Prints a Markdown
# table and the median ratio; nothing is written to RESULTS.md.
#
# pgbench.sh runs its configurations minutes apart, one run each, and the host's speed moves in
# between: its TPC-B-like ratio at READ COMMITTED over the socket was 1.99x and 1.61x in two runs
# three hours apart on 2026-11-29 with nearly the same server. A pair runs within a minute and
# the alternating order cancels a steady drift, as in tpcc/paired.sh.
#
#   sql/bench/paired.sh path/to/farmdb        (use a release build)
#
# Environment: FARMDB_BENCH_SECONDS (default 20 per run), FARMDB_BENCH_ROUNDS (6),
# FARMDB_BENCH_CLIENTS (8), FARMDB_BENCH_SCALE (default: the clients),
# FARMDB_BENCH_TRANSPORT (tcp, the default, or socket), FARMDB_BENCH_MAX_TRIES (100).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 path/to/farmdb" >&2; exit 2; }
farmdb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tools/bench/servers.sh
. "$here/../../tools/bench/servers.sh"
seconds=${FARMDB_BENCH_SECONDS:-20}
rounds=${FARMDB_BENCH_ROUNDS:-6}
clients=${FARMDB_BENCH_CLIENTS:-8}
scale=${FARMDB_BENCH_SCALE:-$clients}
transport=${FARMDB_BENCH_TRANSPORT:-tcp}
max_tries=${FARMDB_BENCH_MAX_TRIES:-100}
pgbench=$bench_pgbin/pgbench

bench_init
case $transport in
  tcp) host=127.0.0.1 ;;
  socket) host=$bench_work ;;
  *) echo "FARMDB_BENCH_TRANSPORT must be tcp or socket" >&2; exit 2 ;;
esac
bench_start_farmdb "$farmdb"
bench_start_postgres -c synchronous_commit=off
for port in "$farmdb_port" "$pg_port"; do
  "$pgbench" -h "$host" -p "$port" -U postgres -i -s "$scale" -q postgres >"$bench_work/init.out" 2>&1 ||
    { cat "$bench_work/init.out" >&2; exit 1; }
done

# measure SERVER -> "tps server-CPU-us-per-transaction retried-%", the other server stopped
# meanwhile.
measure() {
  local server=$1 port options out=$bench_work/run.out
  if [ "$server" = farmdb ]; then
    port=$farmdb_port options="-c default_transaction_isolation=read\\ committed"
  else
    port=$pg_port options=""
  fi
  bench_alone "$server" env PGOPTIONS="$options" "$pgbench" -h "$host" -p "$port" -U postgres -n -M prepared \
    -c "$clients" -j 2 -T "$seconds" --max-tries "$max_tries" postgres >"$out" 2>&1 ||
    { cat "$out" >&2; echo "pgbench failed against $server" >&2; exit 1; }
  awk -v ticks="$alone_ticks" -v hz="$(getconf CLK_TCK)" '
    /^number of transactions actually processed:/ { n = $6 }
    /^tps = .*without initial connection time/ { tps = $3 }
    /^number of transactions retried:/ { retried = $6; gsub(/[()%]/, "", retried) }
    END { printf "%.0f %.0f %s\n", tps, ticks / hz * 1e6 / n, retried == "" ? "0" : retried }' "$out"
}

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine): TPC-B-like, scale $scale, $clients clients," \
  "-M prepared, $transport, ${seconds} s per run, $rounds rounds; farmdb READ COMMITTED."
echo
echo "| round | order | farmdb tps | PostgreSQL tps | ratio | server CPU µs per tx, farmdb / PostgreSQL | farmdb retried |"
echo "|---|---|---|---|---|---|---|"
ratios=()
for round in $(seq "$rounds"); do
  bench_pair "$round"
  read -r f_tps f_cpu f_retried <<<"$pair_farmdb"
  read -r p_tps p_cpu _ <<<"$pair_postgres"
  ratio=$(bench_ratio "$f_tps" "$p_tps")
  ratios+=("$ratio")
  echo "| $round | $pair_order | $f_tps | $p_tps | ${ratio}x | $f_cpu / $p_cpu | $f_retried% |"
done
echo
echo "Median ratio of TPC-B-like tps, farmdb / PostgreSQL: $(bench_median "${ratios[@]}")x."
