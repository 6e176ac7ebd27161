#!/usr/bin/env bash
# Benchmark (not a test): what each TPC-C transaction costs the server, farmdb (1 and 3
# machines) against PostgreSQL 15. One connection runs one transaction type at a time (tpcc run
# --mix), so nothing conflicts and nothing waits; the server's CPU time over the run divided by
# the transactions committed is the cost, whatever else the machine is doing. Rewrites its
# section of tpcc/RESULTS.md (results.sh).
#
#   tpcc/cost_by_type.sh path/to/farmdb path/to/tpcc     (release builds)
#
# Environment: FARMDB_TPCC_COST_SECONDS (default 10 per type), FARMDB_TPCC_LOADERS (2).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 path/to/farmdb path/to/tpcc" >&2; exit 2; }
farmdb=$(realpath "$1")
tpcc=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tools/bench/servers.sh
. "$here/../tools/bench/servers.sh"
# shellcheck source=results.sh
. "$here/results.sh"
seconds=${FARMDB_TPCC_COST_SECONDS:-10}
loaders=${FARMDB_TPCC_LOADERS:-2}
# New-Order first: Delivery then has its orders to deliver.
types=(NewOrder Payment OrderStatus Delivery StockLevel)
mixes=(100,0,0,0,0 0,100,0,0,0 0,0,100,0,0 0,0,0,100,0 0,0,0,0,100)
bench_init

declare -A cost idle
# measure CONFIG PORT PID ISOLATION: the idle server's CPU use (idle[CONFIG], % of a core), then
# one warehouse and each type alone -> cost[CONFIG,TYPE] (µs per transaction)
measure() {
  local config=$1 port=$2 pid=$3 isolation=$4
  local dsn="host=127.0.0.1 port=$port user=postgres dbname=postgres"
  local idle_before
  idle_before=$(bench_cpu_ticks "$pid")
  sleep 5
  idle[$config]=$(( ($(bench_cpu_ticks "$pid") - idle_before) * 100 / 5 / $(getconf CLK_TCK) ))
  echo "== $config: idle at ${idle[$config]}% of a core; loading 1 warehouse" >&2
  "$tpcc" load --dsn "$dsn" -w 1 -c "$loaders" >/dev/null
  for i in "${!types[@]}"; do
    local before after summary="$bench_work/$config.${types[$i]}.summary"
    before=$(bench_cpu_ticks "$pid")
    "$tpcc" run --dsn "$dsn" -c 1 --warmup 1 --duration "$seconds" --isolation "$isolation" --mix "${mixes[$i]}" \
      --no-check --log "$bench_work/log.tsv" --plot /dev/null --summary "$summary" >/dev/null 2>&1
    sleep 1  # let the server reap the session that just ended
    after=$(bench_cpu_ticks "$pid")
    cost[$config,${types[$i]}]=$("$bench_py" -c \
      "print(round(1e6 * ($after - $before) / $(getconf CLK_TCK) / $(sed -n 's/^run_committed=//p' "$summary")))")
    echo "   ${types[$i]}: ${cost[$config,${types[$i]}]} µs" >&2
  done
}

bench_start_farmdb "$farmdb"
measure farmdb1 "$farmdb_port" "$bench_farmdb_pid" serializable
bench_stop_farmdb
bench_start_farmdb "$farmdb" -o farmdb.machines=3
measure farmdb3 "$farmdb_port" "$bench_farmdb_pid" serializable
bench_stop_farmdb
bench_start_postgres -c synchronous_commit=off -c shared_buffers=1GB
measure postgres "$pg_port" "$pg_pid" read-committed

text=$(
  echo
  echo "## Server CPU per transaction, by type"
  echo
  echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine): \`tpcc/cost_by_type.sh build/release/server/farmdb" \
    "build/release/tpcc/tpcc\` (FARMDB_TPCC_COST_SECONDS=$seconds). One warehouse, one connection running one"
  echo "transaction type for ${seconds} s (no conflicts, no waiting); server user + system CPU time per committed"
  echo "transaction, in microseconds. Idle, before loading, the servers used ${idle[farmdb1]}%, ${idle[farmdb3]}% and"
  echo "${idle[postgres]}% of a core (farmdb's machines poll their rings), which these figures include."
  echo
  echo "| transaction | farmdb, 1 machine | farmdb, 3 machines | PostgreSQL 15 | farmdb 1 machine / PostgreSQL |"
  echo "|---|---|---|---|---|"
  for t in "${types[@]}"; do
    echo "| $t | ${cost[farmdb1,$t]} | ${cost[farmdb3,$t]} | ${cost[postgres,$t]} |" \
      "$(bench_ratio "${cost[farmdb1,$t]}" "${cost[postgres,$t]}") |"
  done
  echo
)
results_section "$here/RESULTS.md" cost_by_type "$text"
echo "wrote $here/RESULTS.md" >&2
