#!/usr/bin/env bash
# Starts (or stops) a private Redis and Postgres for development and tests, from Debian's packages
# (redis-server, postgresql), never as system services: data, sockets, logs and pid files live in
# .tmp/services/ of the repository (or $CREWTS_SERVICES_DIR), on free ports of 127.0.0.1.
#
#   scripts/services.sh start [redis|postgres|all]   # idempotent: reuses what is already running; prints the URLs
#   scripts/services.sh stop     # stops what start started (by its pid file), keeps nothing
#   scripts/services.sh status
#
# start writes the URLs to <dir>/env (CREWTS_REDIS_URL=..., CREWTS_DATABASE_URL=...), so
# `set -a; . .tmp/services/env; set +a` points crewts at them.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${CREWTS_SERVICES_DIR:-$root/.tmp/services}
pg_bin=${CREWTS_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}

# Runs a Postgres program as the postgres user when we are root (Postgres refuses to run as root).
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

alive() { [ -f "$1" ] && kill -0 "$(head -n 1 "$1")" 2>/dev/null; }

start_redis() {
  mkdir -p "$dir/redis"
  if alive "$dir/redis/redis.pid" && [ -f "$dir/redis/port" ]; then return; fi
  command -v redis-server >/dev/null || { echo "redis-server is not installed: apt-get install redis-server" >&2; exit 1; }
  local port; port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --dir "$dir/redis" --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" >/dev/null
  # --daemonize returns before the pid file is written; wait until Redis answers.
  for _ in $(seq 1 100); do
    if redis-cli -p "$port" ping >/dev/null 2>&1; then echo "$port" >"$dir/redis/port"; return; fi
    sleep 0.05
  done
  echo "Redis did not start on port $port; see $dir/redis/redis.log" >&2
  exit 1
}

start_postgres() {
  local data="$dir/postgres/data"
  mkdir -p "$dir/postgres"
  if [ -f "$dir/postgres/port" ] && alive "$data/postmaster.pid"; then return; fi
  [ -x "$pg_bin/initdb" ] || { echo "Postgres is not installed (no initdb in /usr/lib/postgresql/*/bin): apt-get install postgresql" >&2; exit 1; }
  # Postgres runs as the postgres user: it must be able to reach its folder.
  if [ "$(id -u)" = 0 ]; then chmod go+x "$dir"; chown -R postgres: "$dir/postgres"; fi
  if [ ! -f "$data/PG_VERSION" ]; then
    # Trust authentication on 127.0.0.1 only: a throwaway database for development and tests.
    as_pg "$pg_bin/initdb" -D "$data" -U crewts -A trust --no-sync -E UTF8 >"$dir/postgres/initdb.log"
  fi
  local port; port=$(free_port)
  as_pg "$pg_bin/pg_ctl" -D "$data" -l "$dir/postgres/postgres.log" -w -t 30 \
    -o "-p $port -k $dir/postgres -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null
  as_pg "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U crewts -d postgres -qtAc "SELECT 1 FROM pg_database WHERE datname='crewts'" | grep -q 1 ||
    as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$port" -U crewts crewts
  echo "$port" >"$dir/postgres/port"
}

write_env() {
  {
    if [ -f "$dir/redis/port" ]; then echo "CREWTS_REDIS_URL=redis://127.0.0.1:$(cat "$dir/redis/port")"; fi
    if [ -f "$dir/postgres/port" ]; then echo "CREWTS_DATABASE_URL=postgres://crewts@127.0.0.1:$(cat "$dir/postgres/port")/crewts"; fi
  } >"$dir/env"
  cat "$dir/env"
}

stop_all() {
  if alive "$dir/redis/redis.pid"; then
    local pid; pid=$(cat "$dir/redis/redis.pid")
    kill "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  fi
  if [ -f "$dir/postgres/data/postmaster.pid" ]; then
    as_pg "$pg_bin/pg_ctl" -D "$dir/postgres/data" -m immediate -w stop >/dev/null || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start)
    case "${2:-all}" in
      redis) start_redis ;;
      postgres) start_postgres ;;
      all) start_redis; start_postgres ;;
      *) echo "usage: $0 start [redis|postgres|all]" >&2; exit 2 ;;
    esac
    write_env
    ;;
  stop) stop_all ;;
  status)
    if alive "$dir/redis/redis.pid"; then echo "redis: running on port $(cat "$dir/redis/port")"; else echo "redis: stopped"; fi
    if [ -f "$dir/postgres/data/postmaster.pid" ] && alive "$dir/postgres/data/postmaster.pid"; then echo "postgres: running on port $(cat "$dir/postgres/port")"; else echo "postgres: stopped"; fi
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
