#!/usr/bin/env bash
# Benchmark (not a test): unmodified pgbench against farmdb and PostgreSQL 15
# (synchronous_commit=off, fsync=off) on the same machine in one run: `pgbench -i`, then the
# select-only script (-S) and the default TPC-B-like script, both with -M prepared and the same
# clients, the server not being measured stopped (SIGSTOP) meanwhile. Prints the figures and
# ratios and puts a row per configuration in RESULTS.md's "pgbench tps" table beside this script,
# in place of the previous run's.
#
#   sql/bench/pgbench.sh path/to/farmdb        (use a release build)
#
# Environment: FARMDB_BENCH_SECONDS (default 30 per script), FARMDB_BENCH_CLIENTS (8),
# FARMDB_BENCH_SCALE (default: the clients, as pgbench's documentation advises),
# FARMDB_BENCH_MAX_TRIES (100).
#
# Isolation: PostgreSQL runs at its default, READ COMMITTED. farmdb runs twice, at its default
# SERIALIZABLE and at READ COMMITTED (set through PGOPTIONS), since the two differ in how long
# a transaction's conflict window is: serializable reads at the transaction's first read
# timestamp, READ COMMITTED takes a fresh one per statement (DESIGN.md §2).
#
# Transports: every configuration runs over TCP on the loopback (-h 127.0.0.1) and over a
# Unix-domain socket (pgbench's default transport; both servers' sockets are in the work
# directory). A round trip costs a server and pgbench kernel work that depends on the
# transport (TCP's is larger; RESULTS.md, "What limits the figures"). Every server is loaded
# afresh for each transport, so no run meets tables that another run has grown.
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
scale=${FARMDB_BENCH_SCALE:-$clients}
max_tries=${FARMDB_BENCH_MAX_TRIES:-100}
threads=2
pgbench=$bench_pgbin/pgbench

bench_init
bench_start_farmdb "$farmdb"
bench_start_postgres -c synchronous_commit=off

log="$bench_work/pgbench.log"
# pgbench_run HOST PORT ARGS... -> the output, also appended to the log
pgbench_run() {
  local host=$1 port=$2
  shift 2
  "$pgbench" -h "$host" -p "$port" -U postgres "$@" postgres 2>&1 | tee -a "$log"
}
tps_of() { sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$1"; }
retried_of() { sed -n 's/^number of transactions retried: [0-9]* (\([0-9.]*\)%)$/\1/p' <<<"$1"; }
failed_of() { sed -n 's/^number of failed transactions: [0-9]* (\([0-9.]*\)%)$/\1/p' <<<"$1"; }

# Configurations: name, port, isolation (PGOPTIONS); run once per transport.
systems=("farmdb, SERIALIZABLE" "farmdb, READ COMMITTED" "PostgreSQL 15, READ COMMITTED")
system_ports=("$farmdb_port" "$farmdb_port" "$pg_port")
system_options=("" "-c default_transaction_isolation=read\\ committed" "")
transports=("TCP" "Unix socket")
hosts=("127.0.0.1" "$bench_work")
names=() ports=() options=() transport_of=()
for t in "${!transports[@]}"; do
  for i in "${!systems[@]}"; do
    names+=("${systems[$i]}, ${transports[$t]}")
    ports+=("${system_ports[$i]}")
    options+=("${system_options[$i]}")
    transport_of+=("$t")
  done
done
declare -A select_tps tpcb_tps tpcb_retried tpcb_failed
for i in "${!names[@]}"; do
  port=${ports[$i]}
  host=${hosts[${transport_of[$i]}]}
  # Each server is loaded afresh before its first configuration of each transport.
  if [ "$i" -eq 0 ] || [ "$port" != "${ports[$((i - 1))]}" ]; then
    pgbench_run "$host" "$port" -i -s "$scale" -q >/dev/null || { cat "$log" >&2; exit 1; }
  fi
  export PGOPTIONS=${options[$i]}
  # The other server is stopped while this one is measured: an idle farmdb's participant and
  # clock threads still wake up every millisecond or less.
  if [ "$port" = "$farmdb_port" ]; then other=postgres; else other=farmdb; fi
  bench_pause STOP "$other"
  out=$(pgbench_run "$host" "$port" -n -M prepared -S -c "$clients" -j "$threads" -T "$seconds")
  select_tps[$i]=$(tps_of "$out")
  out=$(pgbench_run "$host" "$port" -n -M prepared -c "$clients" -j "$threads" -T "$seconds" \
    --max-tries="$max_tries")
  tpcb_tps[$i]=$(tps_of "$out")
  tpcb_retried[$i]=$(retried_of "$out")
  tpcb_failed[$i]=$(failed_of "$out")
  bench_pause CONT "$other"
  unset PGOPTIONS
  if [ -z "${select_tps[$i]}" ] || [ -z "${tpcb_tps[$i]}" ]; then
    echo "pgbench failed against ${names[$i]}:" >&2
    cat "$log" >&2
    exit 1
  fi
done

# PostgreSQL's row of the same transport: the last of each transport's group.
pg_of() { echo $(((${transport_of[$1]} + 1) * ${#systems[@]} - 1)); }
# The table under "## pgbench tps" in RESULTS.md (the file's last section) holds the latest run:
# its rows replace the rows there.
results="$here/RESULTS.md"
grep -q '^## pgbench tps' "$results" || { echo "$results has no '## pgbench tps' section" >&2; exit 1; }
stamp=$(date -u '+%Y-%m-%d %H:%M')
commit=$(git -C "$here" rev-parse --short HEAD)
rows=""
for i in "${!names[@]}"; do
  pg=$(pg_of "$i")
  select_ratio=$(bench_ratio "${select_tps[$i]}" "${select_tps[$pg]}")
  tpcb_ratio=$(bench_ratio "${tpcb_tps[$i]}" "${tpcb_tps[$pg]}")
  echo "${names[$i]}: select-only ${select_tps[$i]} tps (x$select_ratio), TPC-B-like ${tpcb_tps[$i]} tps (x$tpcb_ratio), retried ${tpcb_retried[$i]:-0}%, failed ${tpcb_failed[$i]:-0}%"
  rows+="| $stamp | $commit | $(bench_machine) | $scale, $clients, $seconds | ${names[$i]} | ${select_tps[$i]} | $select_ratio | ${tpcb_tps[$i]} | $tpcb_ratio | ${tpcb_retried[$i]:-0}% / ${tpcb_failed[$i]:-0}% |"$'\n'
done
ROWS="$rows" "$bench_py" - "$results" <<'PY'
import os, sys
path = sys.argv[1]
lines = open(path).read().split("\n")
at = next(i for i, l in enumerate(lines) if l.startswith("## pgbench tps"))
sep = next(i for i in range(at, len(lines)) if lines[i].startswith("|---"))
open(path, "w").write("\n".join(lines[: sep + 1]) + "\n" + os.environ["ROWS"])
PY
