# Shell functions for benchmarks that run farmdb and a scratch PostgreSQL 15 side by side on this
# machine (source it; bash only). Everything lives under one temporary work directory that
# bench_cleanup (installed as the EXIT trap by bench_init) stops and removes.
#
#   bench_init                     make $bench_work, trap EXIT
#   bench_start_farmdb BIN [ARGS]  start farmdb on a free port -> $farmdb_port ($bench_farmdb_base,
#                                  synchronous_commit=off unless the caller empties it, then ARGS;
#                                  its Unix-domain socket in $bench_work, as PostgreSQL's)
#   bench_start_farmdb_cluster BIN N [ARGS]
#                                  a ZooKeeper server and N farmdb processes, one machine each
#                                  of a multi-process cluster (farmdb.replicas=min(3, N)), each
#                                  with $bench_farmdb_base and ARGS -> $farmdb_ports (array),
#                                  $farmdb_port (the first)
#   bench_stop_farmdb              stop it (or them, and ZooKeeper) and remove the data, so
#                                  another can start
#   bench_start_postgres [-c ...]  initdb + start PostgreSQL 15 ($bench_pg_base, fsync=off unless
#                                  the caller empties it, plus the given settings) -> $pg_port,
#                                  $pg_pid (the postmaster);
#                                  $bench_postgres_exe, if set, is run instead of the postgres
#                                  executable (a wrapper: valgrind)
#   bench_pause SIGNAL SERVER      SIGSTOP or SIGCONT farmdb or postgres (all its processes), so
#                                  that a paired run's idle server takes no CPU from the other
#   bench_alone SERVER CMD...      runs CMD with the other server paused -> $alone_ticks, the
#                                  CPU ticks SERVER used meanwhile (bench_cpu_ticks)
#   bench_pair ROUND               one round of a paired benchmark: the caller's `measure farmdb`
#                                  and `measure postgres`, farmdb first in odd rounds ->
#                                  $pair_order, $pair_farmdb, $pair_postgres (their outputs)
#   bench_machine                  one line: cores, CPU model, kernel
#   bench_cpu_ticks PID...         CPU clock ticks used so far by the PIDs and their children
#   bench_ratio A B                A / B with two decimals
#   bench_median X...              the median of the numbers, with two decimals
#
# PostgreSQL runs as the postgres user when this runs as root (initdb refuses root).
#
# The work directory, and with it both servers' data directories, is on /dev/shm (tmpfs) when
# that exists, else /tmp; FARMDB_BENCH_DIR overrides (sql/bench/durable.sh puts both on the disk).
# By default both servers commit without waiting for their logs (synchronous_commit=off), so the
# in-memory comparisons measure the engines, not the file system under them.

bench_pgbin=/usr/lib/postgresql/15/bin
bench_py=/usr/bin/python3
bench_work=""
bench_farmdb_pid=""
bench_farmdb_pids=()   # every farmdb process: one, or a cluster's
bench_zookeeper=""     # the cluster's ZooKeeper directory, when one runs
bench_pg_started=""
bench_postgres_exe=""

bench_as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

bench_cleanup() {
  # A server a failed run left paused (bench_pause) would not stop.
  ((${#bench_farmdb_pids[@]} == 0)) || bench_pause CONT farmdb 2>/dev/null || true
  [ -z "$bench_pg_started" ] || bench_pause CONT postgres 2>/dev/null || true
  bench_stop_farmdb
  if [ -n "$bench_pg_started" ]; then
    bench_as_pg "$bench_pgbin/pg_ctl" -D "$bench_work/pg" -m immediate stop >/dev/null 2>&1 || true
  fi
  [ -z "$bench_work" ] || rm -rf "$bench_work"
}

bench_init() {
  local base=/tmp
  [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
  bench_work=$(mktemp -d "${FARMDB_BENCH_DIR:-$base}/farmdb-bench.XXXXXX")
  chmod 755 "$bench_work"
  [ "$(id -u)" -ne 0 ] || chown postgres "$bench_work"
  trap bench_cleanup EXIT
}

bench_free_port() {
  "$bench_py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

bench_farmdb_base=(-o synchronous_commit=off)

# farmdb prints one ready line with its address once it accepts connections (port 0 = any).
bench_start_farmdb() {
  local bin=$1
  shift
  mkfifo "$bench_work/ready"
  "$bin" -p 0 -D "$bench_work/farmdb" --log-level warn -o unix_socket_directories="$bench_work" \
    "${bench_farmdb_base[@]}" "$@" \
    >"$bench_work/ready" \
    2>"$bench_work/farmdb.log" &
  bench_farmdb_pid=$!
  bench_farmdb_pids=("$bench_farmdb_pid")
  local ready
  read -r -t 300 ready <"$bench_work/ready" || {
    echo "farmdb did not start:" >&2
    cat "$bench_work/farmdb.log" >&2
    return 1
  }
  farmdb_port=${ready##*:}
  farmdb_port=${farmdb_port%% *}
}

bench_start_farmdb_cluster() {
  local bin=$1 nodes=$2 i ready
  shift 2
  local here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$bench_work/cluster"
  bench_zookeeper=$bench_work/cluster/zookeeper
  local zk
  zk=$("$here/../zookeeper.sh" start --fresh "$bench_zookeeper")
  farmdb_ports=()
  local fds=()
  for ((i = 0; i < nodes; i++)); do
    mkfifo "$bench_work/cluster/ready$i"
    # Opened here, read-write so that it does not block: a node's open of its ready line would
    # wait for a reader, and the nodes wait for one another to form the cluster.
    exec {fds[i]}<>"$bench_work/cluster/ready$i"
    "$bin" -p 0 -D "$bench_work/cluster/n$i" --log-level info -o unix_socket_directories= \
      -o "farmdb.zookeeper=$zk" -o farmdb.cluster=bench -o farmdb.fabric_address=127.0.0.1:0 \
      -o "farmdb.replicas=$((nodes < 3 ? nodes : 3))" "${bench_farmdb_base[@]}" "$@" \
      >"$bench_work/cluster/ready$i" 2>"$bench_work/cluster/n$i.log" &
    bench_farmdb_pids+=($!)
  done
  for ((i = 0; i < nodes; i++)); do
    read -r -t 300 ready <&"${fds[i]}" || {
      echo "farmdb node $i did not start:" >&2
      cat "$bench_work/cluster/n$i.log" >&2
      return 1
    }
    exec {fds[i]}<&-
    ready=${ready##*:}
    farmdb_ports+=("${ready%% *}")
  done
  farmdb_port=${farmdb_ports[0]}
}

bench_stop_farmdb() {
  ((${#bench_farmdb_pids[@]})) || return 0
  kill -TERM "${bench_farmdb_pids[@]}" 2>/dev/null || true
  wait "${bench_farmdb_pids[@]}" 2>/dev/null || true
  bench_farmdb_pid=""
  bench_farmdb_pids=()
  if [ -n "$bench_zookeeper" ]; then
    "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../zookeeper.sh" stop "$bench_zookeeper"
    bench_zookeeper=""
  fi
  rm -rf "$bench_work/farmdb" "$bench_work/ready" "$bench_work/cluster"
}

bench_pg_base=(-c fsync=off)

bench_start_postgres() {
  local settings=("${bench_pg_base[@]}" "$@")
  pg_port=$(bench_free_port)
  bench_as_pg "$bench_pgbin/initdb" -D "$bench_work/pg" -U postgres -A trust >/dev/null
  bench_as_pg "$bench_pgbin/pg_ctl" -D "$bench_work/pg" -l "$bench_work/pg.log" -w -t 300 \
    ${bench_postgres_exe:+-p "$bench_postgres_exe"} \
    -o "-p $pg_port -k $bench_work -c listen_addresses=127.0.0.1 ${settings[*]}" start >/dev/null
  bench_pg_started=1
  pg_pid=$(head -1 "$bench_work/pg/postmaster.pid")
}

# A backend may exit between listing and signalling it.
bench_pause() {
  if [ "$2" = farmdb ]; then
    kill "-$1" "${bench_farmdb_pids[@]}"
  else
    kill "-$1" "$pg_pid"
    pkill "-$1" -P "$pg_pid" || true
  fi
}

# A failed CMD returns with the other server still paused; bench_cleanup resumes it.
bench_alone() {
  local server=$1 other pids before
  shift
  if [ "$server" = farmdb ]; then
    other=postgres pids=("${bench_farmdb_pids[@]}")
  else
    other=farmdb pids=("$pg_pid")
  fi
  bench_pause STOP "$other"
  before=$(bench_cpu_ticks "${pids[@]}")
  "$@" || return
  sleep 1  # PostgreSQL's backends exit, and their CPU time reaches the postmaster's children
  alone_ticks=$(($(bench_cpu_ticks "${pids[@]}") - before))
  bench_pause CONT "$other"
}

# The alternating order cancels a steady drift of the host's speed.
bench_pair() {
  if [ $(($1 % 2)) -eq 1 ]; then
    pair_order="farmdb first"
    pair_farmdb=$(measure farmdb)
    pair_postgres=$(measure postgres)
  else
    pair_order="PostgreSQL first"
    pair_postgres=$(measure postgres)
    pair_farmdb=$(measure farmdb)
  fi
}

bench_machine() {
  local cpu
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
  echo "$(nproc) cores, ${cpu:-unknown CPU}, $(free -g | awk '/^Mem:/ {print $2}') GiB, $(uname -sr)"
}

# User + system time of each PID (all threads), of its live children and of the children it has
# reaped: PostgreSQL's backends end with their connections and leave their time to the postmaster.
bench_cpu_ticks() {
  local total=0 pid p
  for pid in "$@"; do
    for p in "$pid" $(pgrep -P "$pid"); do
      total=$((total + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$p/stat" 2>/dev/null || echo 0)))
    done
  done
  echo "$total"
}

bench_ratio() { "$bench_py" -c "print(f'{$1 / $2:.2f}')"; }

bench_median() {
  printf '%s\n' "$@" | sort -n |
    awk '{ r[NR] = $1 } END { printf "%.2f\n", (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'
}
