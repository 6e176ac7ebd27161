#!/usr/bin/env bash
# A standalone ZooKeeper server on 127.0.0.1 from Debian's `zookeeper` package, for tests and
# `./dev cluster`. No service is installed or started; the server lives in DIR.
#
#   tools/zookeeper.sh start [--fresh] DIR [PORT]
#       Starts a server whose data, config, log and pid live in DIR (--fresh: its data goes
#       first), on PORT (omitted or 0: a free port), with the AdminServer off and only the
#       `ruok` and `srvr` four-letter words. Waits until it answers, writes "127.0.0.1:PORT" to
#       DIR/address and prints it. A server already running from DIR is left as it is.
#   tools/zookeeper.sh stop DIR
#       Stops the server started from DIR (SIGTERM, then SIGKILL after 10 s). The data stays.
set -euo pipefail

usage() { sed -n '5,12p' "$0" >&2; exit 2; }

alive() { [ -f "$1/pid" ] && kill -0 "$(cat "$1/pid")" 2>/dev/null; }

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

answers() {  # PORT: the server says "imok" to "ruok"
  local reply=""
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf ruok >&3
  read -r -t 2 reply <&3 || true
  exec 3<&-
  [ "$reply" = imok ]
}

start() {
  local fresh=0
  if [ "${1:-}" = --fresh ]; then fresh=1; shift; fi
  [ $# -ge 1 ] || usage
  local dir=$1 want_port=${2:-0}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if alive "$dir"; then cat "$dir/address"; return; fi
  ((fresh)) && rm -rf "$dir/data"
  mkdir -p "$dir/data"
  [ -f /usr/share/java/zookeeper.jar ] || { echo "zookeeper.sh: Debian's zookeeper package is not installed" >&2; exit 1; }
  # A port chosen here can be taken before the server binds it: then try another.
  local attempt
  for attempt in 1 2 3; do
    local port=$want_port
    [ "$port" != 0 ] || port=$(free_port)
    cat >"$dir/zoo.cfg" <<CFG
tickTime=500
minSessionTimeout=1000
dataDir=$dir/data
clientPortAddress=127.0.0.1
clientPort=$port
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
maxClientCnxns=0
CFG
    setsid java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
      -Dzookeeper.admin.enableServer=false -cp /usr/share/java/zookeeper.jar \
      org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" \
      >"$dir/zookeeper.log" 2>&1 </dev/null &
    echo $! >"$dir/pid"
    local waited
    for waited in $(seq 1 600); do  # 60 s: a JVM starting beside sanitizer builds is slow
      if answers "$port"; then
        echo "127.0.0.1:$port" >"$dir/address"
        echo "127.0.0.1:$port"
        return
      fi
      alive "$dir" || break
      sleep 0.1
    done
    alive "$dir" && stop "$dir"
    [ "$want_port" = 0 ] || break
  done
  echo "zookeeper.sh: the server did not start; its log, $dir/zookeeper.log:" >&2
  tail -20 "$dir/zookeeper.log" >&2
  exit 1
}

stop() {
  [ $# -eq 1 ] || usage
  local dir=$1
  if alive "$dir"; then
    local pid
    pid=$(cat "$dir/pid")
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid" "$dir/address"
}

cmd=${1:-}
shift || true
case "$cmd" in
  start) start "$@" ;;
  stop) stop "$@" ;;
  *) usage ;;
esac
