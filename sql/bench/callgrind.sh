#!/usr/bin/env bash
# Benchmark (not a test): server instructions per pgbench transaction, counted by callgrind, for
# farmdb and PostgreSQL 15 (synchronous_commit=off, fsync=off) on the same machine in one run.
# Instruction counts do not depend on how busy the machine is, so they show what a change costs
# or saves where tps on a shared 2-core machine is too noisy. One client, -M prepared, scale 1:
# the TPC-B-like script and the select-only script (-S). Prints the figures and ratios.
#
#   sql/bench/callgrind.sh path/to/farmdb        (use a release build)
#
# Environment: FARMDB_CG_TRANSACTIONS (default 2000 per script).
#
# What is counted. farmdb: every thread of the process (sessions, participants, pollers) between
# callgrind_control -z and -d around the measured pgbench run, after a warm-up run. PostgreSQL:
# the backend serving the pgbench connection (each connection is a forked process with its own
# callgrind file), run twice with different transaction counts; the difference divided by the
# difference in transactions leaves out connection start and end. PostgreSQL's background
# processes (WAL writer, checkpointer, autovacuum) are not counted, which favours PostgreSQL.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 path/to/farmdb" >&2; exit 2; }
farmdb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tools/bench/servers.sh
. "$here/../../tools/bench/servers.sh"
n=${FARMDB_CG_TRANSACTIONS:-2000}
pgbench=$bench_pgbin/pgbench
scripts=("TPC-B-like" "select-only")
script_flags=("" "-S")

bench_init
cg=$bench_work/cg
mkdir -p "$cg"
chmod 777 "$cg"
# wrap NAME EXE CALLGRIND-ARGS...: a script running EXE under callgrind with its arguments.
wrap() {
  local name=$1 exe=$2
  shift 2
  printf '#!/bin/sh\nexec valgrind --tool=callgrind -q %s %s "$@"\n' "$*" "$exe" >"$bench_work/$name"
  chmod 755 "$bench_work/$name"
}
# The total instructions (Ir) in a callgrind output file (its last line; none while it is being
# written).
instructions() { sed -n 's/^totals: \([0-9]*\).*/\1/p' "$1"; }
run() {
  local port=$1 flags=$2 count=$3
  # shellcheck disable=SC2086
  "$pgbench" -h 127.0.0.1 -p "$port" -U postgres -n -M prepared -c 1 -j 1 -t "$count" $flags \
    postgres >>"$bench_work/pgbench.log" 2>&1 || { cat "$bench_work/pgbench.log" >&2; exit 1; }
}

# farmdb: instrumentation off until the data is loaded, then zero / run / dump per script.
wrap farmdb-cg "$farmdb" --instr-atstart=no "--callgrind-out-file=$cg/farmdb"
bench_start_farmdb "$bench_work/farmdb-cg"
"$pgbench" -h 127.0.0.1 -p "$farmdb_port" -U postgres -i -s 1 -q postgres >/dev/null 2>&1
callgrind_control -i on "$bench_farmdb_pid" >/dev/null 2>&1
declare -a farmdb_per_txn pg_per_txn
for i in "${!scripts[@]}"; do
  run "$farmdb_port" "${script_flags[$i]}" 300
  callgrind_control -z "$bench_farmdb_pid" >/dev/null 2>&1
  run "$farmdb_port" "${script_flags[$i]}" "$n"
  callgrind_control -d "$bench_farmdb_pid" >/dev/null 2>&1
  dump=$(ls -t "$cg"/farmdb.* | head -1)
  farmdb_per_txn[$i]=$(($(instructions "$dump") / n))
done
bench_stop_farmdb

# PostgreSQL: one callgrind file per process; the newest after a run is that run's backend.
wrap postgres-cg "$bench_pgbin/postgres" "--callgrind-out-file=$cg/pg.%p"
bench_postgres_exe=$bench_work/postgres-cg
# Without autovacuum, whose workers would leave files of their own, the only processes that end
# are backends.
bench_start_postgres -c synchronous_commit=off -c autovacuum=off
"$pgbench" -h 127.0.0.1 -p "$pg_port" -U postgres -i -s 1 -q postgres >/dev/null 2>&1
# pgbench opens two connections (one reads the scale); the run's backend is the one of them with
# the most instructions. Its process starts after every postgres process alive before the run
# and every one that has left a file (a higher pid): an earlier backend is either, since it
# writes its file before it exits. Backends write their files as they exit, after pgbench has
# gone.
backend_instructions() {
  local floor most files f pid count
  floor=$( (pgrep -u postgres; for f in "$cg"/pg.*; do echo "${f##*.}"; done) | sort -n | tail -1)
  run "$pg_port" "$1" "$2"
  for _ in $(seq 600); do
    most=0 files=0
    for f in "$cg"/pg.*; do
      pid=${f##*.}
      [ "$pid" -gt "$floor" ] || continue
      count=$(instructions "$f")
      [ -n "$count" ] || continue
      files=$((files + 1))
      [ "$count" -le "$most" ] || most=$count
    done
    [ "$files" -lt 2 ] || break
    sleep 0.1
  done
  echo "$most"
}
for i in "${!scripts[@]}"; do
  short=$(backend_instructions "${script_flags[$i]}" 300)
  long=$(backend_instructions "${script_flags[$i]}" $((300 + n)))
  pg_per_txn[$i]=$(((long - short) / n))
done

for i in "${!scripts[@]}"; do
  echo "${scripts[$i]}: farmdb ${farmdb_per_txn[$i]} instructions per transaction," \
    "PostgreSQL ${pg_per_txn[$i]} (farmdb / PostgreSQL $(bench_ratio "${farmdb_per_txn[$i]}" "${pg_per_txn[$i]}"))"
done
