#!/usr/bin/env bash
# Benchmark (not a test): TPC-C side by side on this machine in one go, with the same
# warehouses, connections, seed and durations for each of
#   farmdb, 1 machine                       (SERIALIZABLE, farmdb's default; then once more at
#                                            REPEATABLE READ, snapshot isolation, on the same data)
#   farmdb, 3 machines, 3-way replication   (in-process machines, SERIALIZABLE)
#   PostgreSQL 15, synchronous_commit=off   (READ COMMITTED, its default; fsync=off,
#                                            shared_buffers=1GB so the data stays in memory)
# Each gets a fresh server, `tpcc load`, then `tpcc run` (which ends with the consistency
# checks). Rewrites its section of tpcc/RESULTS.md (results.sh; the text around it is kept) and
# puts each configuration's full report and timeline in tpcc/results/.
#
#   tpcc/side_by_side.sh path/to/farmdb path/to/tpcc      (release builds; ./dev tpcc does this)
#
# Environment: FARMDB_TPCC_WAREHOUSES (default 8), FARMDB_TPCC_CONNECTIONS (8: one terminal per
# warehouse, as FaRM and Silo partition TPC-C among their workers),
# FARMDB_TPCC_WARMUP (10 s), FARMDB_TPCC_SECONDS (60 s), FARMDB_TPCC_LOADERS (2 connections),
# FARMDB_TPCC_TRANSPORT (tcp: the loopback, the default; unix: each server's Unix-domain socket,
# written to a section and plots of its own, so that both transports' runs stay in RESULTS.md).
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 path/to/farmdb path/to/tpcc" >&2; exit 2; }
farmdb=$(realpath "$1")
tpcc=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tools/bench/servers.sh
. "$here/../tools/bench/servers.sh"
# shellcheck source=results.sh
. "$here/results.sh"
warehouses=${FARMDB_TPCC_WAREHOUSES:-8}
connections=${FARMDB_TPCC_CONNECTIONS:-8}
warmup=${FARMDB_TPCC_WARMUP:-10}
seconds=${FARMDB_TPCC_SECONDS:-60}
loaders=${FARMDB_TPCC_LOADERS:-2}
transport=${FARMDB_TPCC_TRANSPORT:-tcp}
command="FARMDB_TPCC_WAREHOUSES=$warehouses FARMDB_TPCC_CONNECTIONS=$connections FARMDB_TPCC_WARMUP=$warmup FARMDB_TPCC_SECONDS=$seconds FARMDB_TPCC_LOADERS=$loaders FARMDB_TPCC_TRANSPORT=$transport tpcc/side_by_side.sh build/release/server/farmdb build/release/tpcc/tpcc"

results="$here/RESULTS.md"
plots="$here/results"
mkdir -p "$plots"
bench_init
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Both servers' Unix-domain sockets are in the work directory (tools/bench/servers.sh).
# suffix: of the RESULTS.md section and the plots' names.
case $transport in
  tcp) host=127.0.0.1 transport_text="TCP on the loopback" suffix="" ;;
  unix) host=$bench_work transport_text="Unix-domain sockets" suffix="_unix" ;;
  *) echo "FARMDB_TPCC_TRANSPORT must be tcp or unix, not $transport" >&2; exit 2 ;;
esac

# load NAME PORT: tpcc load against the server on PORT, its summary into $bench_work/NAME.load
load() {
  local name=$1 port=$2
  echo "== $name: loading $warehouses warehouses" >&2
  "$tpcc" load --dsn "host=$host port=$port user=postgres dbname=postgres" -w "$warehouses" -c "$loaders" \
    >"$bench_work/$name.load"
}

# measure NAME LABEL ISOLATION PORT SERVER_PID: run and check against the loaded server on PORT.
# The run's report goes to $bench_work/NAME.out, its key=value summary to $bench_work/NAME.summary,
# with the server's CPU time over the run (warm-up included) and the checks' verdict appended.
measure() {
  local name=$1 label=$2 isolation=$3 port=$4 pid=$5
  local dsn="host=$host port=$port user=postgres dbname=postgres"
  echo "== $label: $connections connections, ${warmup} s warm-up, ${seconds} s measured" >&2
  local before after checks=pass
  before=$(bench_cpu_ticks "$pid")
  "$tpcc" run --dsn "$dsn" -c "$connections" --warmup "$warmup" --duration "$seconds" --no-check \
    --isolation "$isolation" --label "$label" --log "$bench_work/$name.tsv" --plot "$plots/$name$suffix.png" \
    --summary "$bench_work/$name.summary" >"$bench_work/$name.out" || { echo "tpcc run failed against $label" >&2; exit 1; }
  sleep 1  # let the server reap the sessions that just ended
  after=$(bench_cpu_ticks "$pid")
  awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "server_cpu_seconds=%.2f\n", ticks / hz }' \
    >>"$bench_work/$name.summary"
  # The checks run apart from the measured CPU; a failed condition is reported, not fatal.
  "$tpcc" check --dsn "$dsn" >>"$bench_work/$name.out" || checks=FAIL
  echo "checks=$checks" >>"$bench_work/$name.summary"
  cat "$bench_work/$name.out" >&2
}

bench_start_farmdb "$farmdb"
load farmdb1 "$farmdb_port"
measure farmdb1 "farmdb, 1 machine" serializable "$farmdb_port" "$bench_farmdb_pid"
# The same server and database once more, at snapshot isolation (see RESULTS.md for why).
measure farmdb1_si "farmdb, 1 machine, snapshot isolation" repeatable-read "$farmdb_port" "$bench_farmdb_pid"
bench_stop_farmdb
bench_start_farmdb "$farmdb" -o farmdb.machines=3
load farmdb3 "$farmdb_port"
measure farmdb3 "farmdb, 3 machines (3-way replication)" serializable "$farmdb_port" "$bench_farmdb_pid"
bench_stop_farmdb
bench_start_postgres -c synchronous_commit=off -c shared_buffers=1GB
load postgres "$pg_port"
measure postgres "PostgreSQL 15, synchronous_commit=off" read-committed "$pg_port" "$pg_pid"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# value NAME KEY: one figure from a run's summary
value() { sed -n "s/^$2=//p" "$bench_work/$1.summary" | tail -1; }
# server CPU milliseconds per committed transaction over the whole run
cpu_per_txn() { "$bench_py" -c "print(f'{1000 * $(value "$1" server_cpu_seconds) / $(value "$1" run_committed):.2f}')"; }
# loaded NAME: the load's seconds, or that the run reused the database of the row above
loaded() {
  if [ -f "$bench_work/$1.load" ]; then sed -n 's/^loaded .* in \([0-9.]*\) s.*/\1 s/p' "$bench_work/$1.load"; else echo "(as above)"; fi
}
row() {
  local name=$1 label=$2 isolation=$3
  echo "| $label | $isolation | $(value "$name" new_orders_per_s) | $(value "$name" tpmc) | $(value "$name" tps) |" \
    "$(value "$name" retry_rate_percent)% | $(value "$name" NewOrder_p50_ms) / $(value "$name" NewOrder_p90_ms) / $(value "$name" NewOrder_p99_ms) |" \
    "$(cpu_per_txn "$name") | $(loaded "$name") | $(value "$name" checks) |"
}
# report NAME LABEL: the run's full report into tpcc/results/NAME.txt, and a line linking it
# and its timeline (RESULTS.md keeps only the table).
report() {
  sed -n '/^transaction/,$p' "$bench_work/$1.out" >"$plots/$1$suffix.txt"
  echo "- $2: [report](results/$1$suffix.txt), [timeline](results/$1$suffix.png)"
}
pg_nos=$(value postgres new_orders_per_s)
generated=$(
  echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(bench_machine), commit $(git -C "$here" rev-parse --short HEAD)."
  echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after."
  echo
  echo "Command: \`$command\` (or \`./dev tpcc\` with the same environment)."
  echo
  echo "$warehouses warehouses, $connections connections, ${warmup} s warm-up, ${seconds} s measured, no keying or think time," \
    "pipelined batches, seed 1, over $transport_text. Every configuration starts from a fresh server and the same load." \
    "Data on $(stat -f -c %T "$bench_work" | sed 's,ext2/ext3,ext4,'); neither server waits for its log: farmdb with" \
    "synchronous_commit=off, PostgreSQL with synchronous_commit=off, fsync=off and shared_buffers=1GB."
  echo
  echo "| configuration | isolation | new-orders/s | tpmC | committed tx/s | retry rate | New-Order p50 / p90 / p99 ms | server CPU ms per tx | load | checks |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  row farmdb1 "farmdb, 1 machine" SERIALIZABLE
  row farmdb1_si "farmdb, 1 machine (same database, next run)" "REPEATABLE READ (snapshot isolation)"
  row farmdb3 "farmdb, 3 machines, 3-way replication" SERIALIZABLE
  row postgres "PostgreSQL 15, synchronous_commit=off" "READ COMMITTED"
  echo
  echo "Server CPU per transaction: the server's user + system CPU time over the whole run (warm-up included;"
  echo "for PostgreSQL every backend and background process) divided by the transactions committed in it."
  echo
  echo "Ratios of new-orders/s: farmdb 1 machine / PostgreSQL = $(bench_ratio "$(value farmdb1 new_orders_per_s)" "$pg_nos")" \
    "(snapshot isolation: $(bench_ratio "$(value farmdb1_si new_orders_per_s)" "$pg_nos")), farmdb 3 machines / PostgreSQL =" \
    "$(bench_ratio "$(value farmdb3 new_orders_per_s)" "$pg_nos")."
  echo
  report farmdb1 "farmdb, 1 machine"
  report farmdb1_si "farmdb, 1 machine, snapshot isolation"
  report farmdb3 "farmdb, 3 machines, 3-way replication"
  report postgres "PostgreSQL 15, synchronous_commit=off"
)
results_section "$results" "side_by_side$suffix" "$generated" side_by_side
echo "wrote $results" >&2
