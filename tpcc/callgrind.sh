#!/usr/bin/env bash
# Benchmark (not a test): farmdb's instructions per committed TPC-C transaction of each type,
# counted by callgrind over every thread of the server. Instruction counts barely depend on how
# busy the machine is, so they show what a change costs or saves where new-orders/s on a shared
# 2-core machine is too noisy to tell.
#
#   tpcc/callgrind.sh path/to/farmdb path/to/tpcc [TYPE...]
#
# TYPE is new_order, payment, order_status, delivery or stock_level (default: all five). Each
# type runs on its own server: 1 machine, 1 warehouse with 5,000 items and 300 customers per
# district, one connection, 5 s of warm-up with counting on, then FARMDB_CG_SECONDS (default 15)
# counted. Prints one line per type: all threads' instructions per transaction, and the
# connection thread's less statement preparation. Pollers and clock threads are counted too, so a machine
# that commits fewer transactions in the window (it is busy, or the build is slower) shows a few
# percent more per transaction.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 path/to/farmdb path/to/tpcc [TYPE...]" >&2; exit 2; }
farmdb=$(realpath "$1")
tpcc=$(realpath "$2")
shift 2
types=("$@")
[ ${#types[@]} -gt 0 ] || types=(new_order payment order_status delivery stock_level)
seconds=${FARMDB_CG_SECONDS:-15}

mix_of() {
  case $1 in
    new_order) echo 100,0,0,0,0 ;;
    payment) echo 0,100,0,0,0 ;;
    order_status) echo 0,0,100,0,0 ;;
    delivery) echo 0,0,0,100,0 ;;
    stock_level) echo 0,0,0,0,100 ;;
    *) echo "unknown type $1" >&2; exit 2 ;;
  esac
}

work=$(mktemp -d /dev/shm/farmdb-cg.XXXXXX)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

for type in "${types[@]}"; do
  mix=$(mix_of "$type")
  rm -rf "${work:?}"/*
  mkfifo "$work/ready"
  valgrind --tool=callgrind -q --instr-atstart=no --callgrind-out-file="$work/cg.out" \
    "$farmdb" -p 0 -D "$work/db" --log-level warn -o farmdb.machines=1 >"$work/ready" 2>"$work/log" &
  pid=$!
  read -r ready <"$work/ready"
  port=${ready##*:}
  port=${port%% *}
  dsn="host=127.0.0.1 port=$port user=postgres"
  "$tpcc" load --dsn "$dsn" -w 1 -c 1 --items 5000 --customers 300 >/dev/null
  callgrind_control -i on "$pid" >/dev/null 2>&1
  "$tpcc" run --dsn "$dsn" -c 1 --warmup 0 --duration 5 --no-check --mix "$mix" --log "$work/warmup.tsv" \
    --plot "$work/warmup.png" >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  out=$("$tpcc" run --dsn "$dsn" -c 1 --warmup 0 --duration "$seconds" --no-check --mix "$mix" \
    --log "$work/run.tsv" --plot "$work/run.png")
  callgrind_control -d "$pid" >/dev/null 2>&1
  committed=$(awk '$1 == "all" { print $2 }' <<<"$out")
  # The dump is complete once its totals line is written.
  dump=
  for _ in $(seq 100); do
    dump=$(ls -t "$work"/cg.out* 2>/dev/null | head -1)
    [ -n "$dump" ] && grep -q '^totals:' "$dump" && break
    sleep 0.1
  done
  total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$dump")
  # The connection's thread alone, less preparing the driver's statements (its new connection
  # prepares them inside the counted window, the same work whatever the build): steadier than
  # the total, which counts pollers that run by the clock.
  serving=$(callgrind_annotate --inclusive=yes "$dump" 2>/dev/null |
    awk '/:farmdb::server::Connection::Serve\(\) \[/ { gsub(",", "", $1); s = $1 }
         /:farmdb::server::Connection::HandleParse\(/ { gsub(",", "", $1); p = $1 }
         END { print s - p }')
  printf '%-13s %8d transactions  %10d instructions each  %10d on the connection thread\n' \
    "$type" "$committed" $((total / committed)) $((serving / committed))
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
done
