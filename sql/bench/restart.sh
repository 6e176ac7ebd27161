#!/usr/bin/env bash
# Benchmark (not a test): how long farmdb takes to restart with its data on a disk file system.
# For each pgbench scale: load it (pgbench -i), then kill -9 and time the restart to its ready
# line with the page cache warm, then kill -9, drop the page cache (root) and time a cold
# restart; the same after a CHECKPOINT. Reports the region data and the log recovery read (from
# the server's event=recovered line). Prints Markdown; nothing is written to RESULTS.md.
#
#   sql/bench/restart.sh path/to/farmdb        (use a release build)
#
# Environment: FARMDB_BENCH_DIR (default /var/tmp, a disk file system), FARMDB_RESTART_SCALES
# (default "20 80 160": about 1, 4 and 8 GiB of data regions).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 path/to/farmdb" >&2; exit 2; }
farmdb=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${FARMDB_BENCH_DIR:-/var/tmp}/farmdb-restart.XXXXXX")
pid=""
cleanup() {
  local status=$?
  [ -z "$pid" ] || kill -9 "$pid" 2>/dev/null || true
  if [ "$status" -ne 0 ] && [ -f "$dir/farmdb.log" ]; then tail -20 "$dir/farmdb.log" >&2; fi
  rm -rf "$dir"
}
trap cleanup EXIT
pgbench=/usr/lib/postgresql/15/bin/pgbench

# start -> $pid, $port, and the seconds from exec to the ready line in $took
start() {
  local t0 ready
  t0=$(date +%s.%N)
  mkfifo "$dir/ready"
  "$farmdb" -p 0 -D "$dir/data" -o unix_socket_directories= >"$dir/ready" 2>>"$dir/farmdb.log" &
  pid=$!
  read -r -t 3600 ready <"$dir/ready" || { cat "$dir/farmdb.log" >&2; exit 1; }
  rm -f "$dir/ready"
  took=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.2f}')")
  port=${ready##*:}
  port=${port%% *}
}
kill9() { kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
# The data regions' bytes (machine.state), not the old-version regions' (dropped at a start).
regions_gib() {
  awk '/^region_size/ { size = $2 } /^region / && $4 == "data" { n++ }
       END { printf "%.2f\n", n * size / 2^30 }' "$dir"/data/cluster/m0/machine.state
}
last_recovery() { grep event=recovered "$dir/farmdb.log" | tail -1 | sed 's/.*log_bytes=\([0-9]*\).*duration_ms=\([0-9.]*\).*/\1 \2/'; }

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git -C "$here" rev-parse --short HEAD), $(nproc) cores,"
echo "$(uname -sr); data on ${FARMDB_BENCH_DIR:-/var/tmp} ($(stat -f -c %T "$dir")). Times from exec to the ready line."
echo
echo "| scale | region data GiB | restart | checkpoint first | log read MiB | recovery ms | to ready s |"
echo "|---|---|---|---|---|---|---|"
for scale in ${FARMDB_RESTART_SCALES:-20 80 160}; do
  rm -rf "$dir/data" "$dir/farmdb.log"
  start
  "$pgbench" -h 127.0.0.1 -p "$port" -U postgres -i -s "$scale" -q postgres >/dev/null 2>&1
  gib=$(regions_gib)
  for checkpoint in no yes; do
    if [ "$checkpoint" = yes ]; then psql -h 127.0.0.1 -p "$port" -U postgres -qc CHECKPOINT >/dev/null; fi
    for kind in warm cold; do
      kill9
      [ "$kind" = warm ] || drop_caches
      start
      read -r log_bytes ms <<<"$(last_recovery)"
      echo "| $scale | $gib | $kind, after kill -9 | $checkpoint | $(python3 -c "print(f'{$log_bytes / 2**20:.0f}')") | $ms | $took |"
    done
  done
  kill9
done
