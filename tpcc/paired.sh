#!/usr/bin/env bash
# Benchmark (not a test): farmdb (1 machine, or a cluster: FARMDB_TPCC_NODES) against PostgreSQL
# 15 in paired runs. Both servers are loaded once and stay up; then each round runs farmdb and
# PostgreSQL one after the other, in the order farmdb-PostgreSQL in odd rounds and
# PostgreSQL-farmdb in even ones, and reports the round's ratio of new-orders/s. The server not being measured is stopped (SIGSTOP), so
# neither its pollers nor its background workers take CPU from the other.
#
# side_by_side.sh runs its configurations minutes apart, and on a shared machine the host's speed
# moves between them: there the ratio swung from 1.96x to 2.44x in two runs of the same build
# (tpcc/RESULTS.md). Here the two halves of a pair run within a minute of each other, and the
# alternating order cancels a steady drift. That is not all of the host's noise: on the 2-core
# machine of RESULTS.md ("Measuring") rounds a minute apart still differed by up to a third,
# so take the median of several rounds, and of more than one run. Both databases grow by the
# same runs. Prints a Markdown table; nothing is written to RESULTS.md.
#
#   tpcc/paired.sh path/to/farmdb path/to/tpcc      (release builds)
#
# Environment: FARMDB_TPCC_WAREHOUSES (default 8), FARMDB_TPCC_CONNECTIONS (8),
# FARMDB_TPCC_WARMUP (10 s), FARMDB_TPCC_SECONDS (30 s per run), FARMDB_TPCC_ROUNDS (4),
# FARMDB_TPCC_LOADERS (2). farmdb runs SERIALIZABLE, PostgreSQL READ COMMITTED with
# synchronous_commit=off, as in side_by_side.sh, over TCP on the loopback.
# FARMDB_TPCC_NODES=N (default 1): farmdb as a multi-process cluster of N processes, one machine
# each, farmdb.replicas=min(3, N), the terminals spread over the nodes (tpcc --node-dsns), with
# its own ZooKeeper server (its CPU is not counted: it is idle once the cluster formed). Put the
# data on a disk then (FARMDB_BENCH_DIR=/var/tmp): on tmpfs every node's log is memory, and
# three of them with 8 warehouses made the OOM killer take a node on a 24 GiB machine.
# FARMDB_TPCC_DURABLE=on|off: both servers durable instead, their data on FARMDB_BENCH_DIR
# (default /var/tmp, a disk file system), PostgreSQL with its defaults (fsync on), both with that
# synchronous_commit.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 path/to/farmdb path/to/tpcc" >&2; exit 2; }
farmdb=$(realpath "$1")
tpcc=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tools/bench/servers.sh
. "$here/../tools/bench/servers.sh"
warehouses=${FARMDB_TPCC_WAREHOUSES:-8}
connections=${FARMDB_TPCC_CONNECTIONS:-8}
warmup=${FARMDB_TPCC_WARMUP:-10}
seconds=${FARMDB_TPCC_SECONDS:-30}
rounds=${FARMDB_TPCC_ROUNDS:-4}
loaders=${FARMDB_TPCC_LOADERS:-2}
nodes=${FARMDB_TPCC_NODES:-1}

durable=${FARMDB_TPCC_DURABLE:-}
if [ -n "$durable" ]; then
  export FARMDB_BENCH_DIR=${FARMDB_BENCH_DIR:-/var/tmp}
  [ "$(stat -f -c %T "$FARMDB_BENCH_DIR")" != tmpfs ] || { echo "FARMDB_BENCH_DIR is a tmpfs" >&2; exit 2; }
  bench_pg_base=() bench_farmdb_base=()
fi
bench_init
node_dsns=""
if ((nodes > 1)); then
  bench_start_farmdb_cluster "$farmdb" "$nodes" ${durable:+-o synchronous_commit=$durable}
  for p in "${farmdb_ports[@]}"; do node_dsns+="host=127.0.0.1 port=$p user=postgres dbname=postgres;"; done
  farmdb_label="farmdb $nodes processes"
else
  bench_start_farmdb "$farmdb" ${durable:+-o synchronous_commit=$durable}
  farmdb_label="farmdb 1 machine"
fi
bench_start_postgres -c synchronous_commit="${durable:-off}" -c shared_buffers=1GB
farmdb_dsn="host=127.0.0.1 port=$farmdb_port user=postgres dbname=postgres"
pg_dsn="host=127.0.0.1 port=$pg_port user=postgres dbname=postgres"
for dsn in "$farmdb_dsn" "$pg_dsn"; do
  "$tpcc" load --dsn "$dsn" -w "$warehouses" -c "$loaders" >/dev/null
done

# measure SERVER -> "new-orders/s server-CPU-ms-per-transaction", the other server stopped
# meanwhile.
measure() {
  local server=$1 dsn isolation spread=()
  if [ "$server" = farmdb ]; then
    dsn=$farmdb_dsn isolation=serializable
    [ -z "$node_dsns" ] || spread=(--node-dsns "$node_dsns")
  else
    dsn=$pg_dsn isolation=read-committed
  fi
  bench_alone "$server" "$tpcc" run --dsn "$dsn" "${spread[@]}" -c "$connections" --warmup "$warmup" --duration "$seconds" \
    --no-check --isolation "$isolation" --log "$bench_work/run.tsv" --plot "$bench_work/run.png" \
    >"$bench_work/run.out" || {
    echo "tpcc run failed against $server" >&2
    [ ! -d "$bench_work/cluster" ] || tail -n 20 "$bench_work"/cluster/n*.log >&2
    exit 1
  }
  awk -v ticks="$alone_ticks" -v hz="$(getconf CLK_TCK)" \
    '$1 == "NewOrder" { no = $3 } $1 == "all" { n = $2 }
     END { printf "%s %.3f\n", no, ticks / hz * 1000 / n }' "$bench_work/run.out"
}

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine): $warehouses warehouses, $connections connections," \
  "${warmup} s warm-up and ${seconds} s measured per run, $rounds rounds."
echo
echo "| round | order | farmdb new-orders/s | PostgreSQL new-orders/s | ratio | server CPU ms per tx, farmdb / PostgreSQL |"
echo "|---|---|---|---|---|---|"
ratios=()
for round in $(seq "$rounds"); do
  bench_pair "$round"
  read -r f_no f_cpu <<<"$pair_farmdb"
  read -r p_no p_cpu <<<"$pair_postgres"
  ratio=$(bench_ratio "$f_no" "$p_no")
  ratios+=("$ratio")
  echo "| $round | $pair_order | $f_no | $p_no | ${ratio}x | $f_cpu / $p_cpu |"
done
echo
median=$(bench_median "${ratios[@]}")
echo "Median ratio of new-orders/s, $farmdb_label / PostgreSQL: ${median}x."
for dsn in "$farmdb_dsn" "$pg_dsn"; do
  if ! "$tpcc" check --dsn "$dsn" >"$bench_work/check.out"; then
    cat "$bench_work/check.out" >&2
    echo "consistency checks failed ($dsn)" >&2
    exit 1
  fi
done
echo "Consistency checks passed on both."
