#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for the postgresql test tier (`make test-postgresql`, docs/testing.md).
#
#   scripts/postgresql-server.sh start [DIR [PORT]]   prints the server's folder; DIR/env holds its exports
#   scripts/postgresql-server.sh stop DIR             stops the server and removes DIR
#   scripts/postgresql-server.sh halt DIR | restart DIR   stops it as an administrator does (keeping DIR), starts it again
#   scripts/postgresql-server.sh pgbouncer DIR MODE   starts a PgBouncer (pool_mode MODE: session, transaction) in
#                                                     front of the server in DIR; DIR/env-pgbouncer-MODE holds its exports
#   scripts/postgresql-server.sh pgbouncer-stop DIR MODE   stops that PgBouncer (`stop DIR` stops every one of DIR's)
#
# The folder (a new `mktemp -d` under /tmp unless DIR is given) is world-accessible (0755) and outside the checkout,
# which may be a 0700 home: it holds the data (DIR/data), the Unix socket (no TCP: listen_addresses = '') and the
# log (DIR/server.log). initdb refuses root, so as root the server runs as the `postgres` system user (runuser);
# as anyone else, as that user. Durability is off (fsync, full_page_writes, synchronous_commit): the data is thrown
# away. PORT (default: a free one) only names the socket (.s.PGSQL.PORT).
#
# Roles: bk_owner (LOGIN; owns the database bk_test, so it may CREATE schemas in it; not a superuser), bk_reader
# (LOGIN, no privileges of its own: tests GRANT USAGE and SELECT per schema) and bk_secret (LOGIN with a password,
# the one role pg_hba asks a password of, by scram-sha-256; the others are trusted). bk_latin1 is a LATIN1 database
# (a database that is not UTF8 is refused). DIR/env exports BOOKKEEPER_TEST_POSTGRESQL (a conninfo for bk_owner on
# bk_test), BOOKKEEPER_TEST_POSTGRESQL_HOST (the socket folder) and BOOKKEEPER_TEST_POSTGRESQL_PORT.
set -euo pipefail

secret_password='not-the-password-4f1c9e'

bindir() {
  if [ -n "${PG_BINDIR:-}" ]; then echo "$PG_BINDIR"
  elif [ -x /usr/lib/postgresql/15/bin/initdb ]; then echo /usr/lib/postgresql/15/bin
  else dirname "$(command -v initdb)"
  fi
}

# Runs a command as the server's user: `postgres` when we are root (initdb refuses root), else ourselves.
as_server() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local dir="${1:-}" port="${2:-}" bin
  bin=$(bindir)
  if [ -z "$dir" ]; then dir=$(mktemp -d /tmp/bookkeeper-postgresql.XXXXXX); else mkdir -p "$dir"; dir=$(cd "$dir" && pwd); fi
  # The server's user may not enter the checkout (a 0700 home): initdb and pg_ctl start from the folder instead.
  cd "$dir"
  [ -n "$port" ] || port=$(free_port)
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  if ! as_server "$bin/initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C --no-sync \
       >"$dir/initdb.log" 2>&1; then
    echo "postgresql-server: initdb failed:" >&2
    cat "$dir/initdb.log" >&2
    exit 1
  fi
  cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
fsync = off
full_page_writes = off
synchronous_commit = off
max_connections = 60
password_encryption = 'scram-sha-256'
EOF
  cat >"$dir/data/pg_hba.conf" <<EOF
local all bk_secret scram-sha-256
local all all trust
EOF
  if ! as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null; then
    echo "postgresql-server: the server did not start; its log:" >&2
    cat "$dir/server.log" >&2
    exit 1
  fi
  if ! "$bin/psql" -X -q -v ON_ERROR_STOP=1 "host=$dir port=$port user=postgres dbname=postgres" >/dev/null <<EOF
CREATE ROLE bk_owner LOGIN;
CREATE ROLE bk_reader LOGIN;
CREATE ROLE bk_secret LOGIN PASSWORD '$secret_password';
CREATE DATABASE bk_test OWNER bk_owner ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE bk_latin1 OWNER bk_owner ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
EOF
  then
    echo "postgresql-server: setting up the roles failed; the server's log:" >&2
    cat "$dir/server.log" >&2
    exit 1
  fi
  cat >"$dir/env" <<EOF
export BOOKKEEPER_TEST_POSTGRESQL='host=$dir port=$port user=bk_owner dbname=bk_test'
export BOOKKEEPER_TEST_POSTGRESQL_HOST='$dir'
export BOOKKEEPER_TEST_POSTGRESQL_PORT='$port'
EOF
  echo "$dir"
}

stop() {
  local dir="${1:?usage: postgresql-server.sh stop DIR}"
  dir=$(cd "$dir" && pwd)
  cd /
  [ -f "$dir/data/PG_VERSION" ] || { echo "postgresql-server: $dir holds no server" >&2; exit 1; }
  for bouncer in "$dir"/pgbouncer-*; do
    [ ! -d "$bouncer" ] || stop_pgbouncer_in "$bouncer"
  done
  as_server "$(bindir)/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

# Stops the server as an administrator does (`pg_ctl stop -m fast`: sessions are ended, FATAL 57P01), keeping DIR,
# for a test of a server that goes away mid-command; `restart DIR` starts it again.
halt() {
  local dir="${1:?usage: postgresql-server.sh halt DIR}"
  dir=$(cd "$dir" && pwd)
  cd /
  as_server "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
}

restart() {
  local dir="${1:?usage: postgresql-server.sh restart DIR}"
  dir=$(cd "$dir" && pwd)
  cd "$dir"
  as_server "$(bindir)/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
}

# A PgBouncer in front of the server in DIR, pooling in MODE (session, transaction; statement would refuse every
# transaction of more than one statement), with two server connections per database and role (default_pool_size 2:
# clients share them, which is what a test of pooling needs) and trust authentication for the test roles (auth_file
# lists them; pg_hba trusts them on the server). Its folder DIR/pgbouncer-MODE holds the socket, the configuration,
# the log and the pid file; DIR/env-pgbouncer-MODE exports BOOKKEEPER_TEST_PGBOUNCER (a conninfo for bk_owner on
# bk_test through it), BOOKKEEPER_TEST_PGBOUNCER_HOST and BOOKKEEPER_TEST_PGBOUNCER_PORT. PgBouncer refuses root: as
# root it runs as the `postgres` system user, as the server does. `options` (PGOPTIONS) is a startup parameter
# PgBouncer would refuse the client for: it is ignored (bookkeeper sets what it needs in every transaction).
pgbouncer_start() {
  local dir="${1:?usage: postgresql-server.sh pgbouncer DIR MODE}" mode="${2:?usage: postgresql-server.sh pgbouncer DIR MODE}"
  local bouncer port server_port program tries=0
  program=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
  [ -x "$program" ] || { echo "postgresql-server: pgbouncer is not installed" >&2; exit 1; }
  case "$mode" in session|transaction|statement) ;; *) echo "postgresql-server: no pool mode $mode" >&2; exit 2 ;; esac
  dir=$(cd "$dir" && pwd)
  [ -f "$dir/env" ] || { echo "postgresql-server: $dir holds no server" >&2; exit 1; }
  server_port=$(sed -n "s/^export BOOKKEEPER_TEST_POSTGRESQL_PORT='\(.*\)'\$/\1/p" "$dir/env")
  bouncer="$dir/pgbouncer-$mode"
  stop_pgbouncer_in "$bouncer"
  mkdir -p "$bouncer"
  cd "$bouncer"
  port=$(free_port)
  chmod 755 "$bouncer"
  printf '"bk_owner" ""\n"bk_reader" ""\n"postgres" ""\n' >"$bouncer/users.txt"
  {
    echo "[databases]"
    echo "* = host=$dir port=$server_port"
    echo "[pgbouncer]"
    echo "listen_addr ="
    echo "listen_port = $port"
    echo "unix_socket_dir = $bouncer"
    echo "auth_type = trust"
    echo "auth_file = $bouncer/users.txt"
    echo "pool_mode = $mode"
    echo "default_pool_size = 2"
    echo "max_client_conn = 200"
    echo "ignore_startup_parameters = options, extra_float_digits"
    echo "logfile = $bouncer/pgbouncer.log"
    echo "pidfile = $bouncer/pgbouncer.pid"
  } >"$bouncer/pgbouncer.ini"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$bouncer"; fi
  if ! as_server "$program" -d "$bouncer/pgbouncer.ini" >"$bouncer/start.log" 2>&1; then
    echo "postgresql-server: pgbouncer did not start:" >&2
    cat "$bouncer/start.log" "$bouncer/pgbouncer.log" >&2 2>/dev/null || true
    exit 1
  fi
  until [ -S "$bouncer/.s.PGSQL.$port" ]; do
    tries=$((tries + 1))
    if [ $tries -gt 100 ]; then echo "postgresql-server: pgbouncer made no socket; its log:" >&2; cat "$bouncer/pgbouncer.log" >&2; exit 1; fi
    sleep 0.05
  done
  {
    echo "export BOOKKEEPER_TEST_PGBOUNCER='host=$bouncer port=$port user=bk_owner dbname=bk_test'"
    echo "export BOOKKEEPER_TEST_PGBOUNCER_HOST='$bouncer'"
    echo "export BOOKKEEPER_TEST_PGBOUNCER_PORT='$port'"
  } >"$dir/env-pgbouncer-$mode"
  echo "$bouncer"
}

# Stops the PgBouncer whose folder is $1 (its pid file's process), if one runs.
stop_pgbouncer_in() {
  local bouncer="$1" pid tries=0
  [ -f "$bouncer/pgbouncer.pid" ] || return 0
  pid=$(cat "$bouncer/pgbouncer.pid")
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    while kill -0 "$pid" 2>/dev/null && [ $tries -lt 100 ]; do tries=$((tries + 1)); sleep 0.05; done
  fi
  rm -f "$bouncer/pgbouncer.pid"
}

pgbouncer_stop() {
  local dir="${1:?usage: postgresql-server.sh pgbouncer-stop DIR MODE}" mode="${2:?usage: postgresql-server.sh pgbouncer-stop DIR MODE}"
  dir=$(cd "$dir" && pwd)
  stop_pgbouncer_in "$dir/pgbouncer-$mode"
  rm -rf "$dir/pgbouncer-$mode" "$dir/env-pgbouncer-$mode"
}

# The server's log (the test run prints it when tests fail).
log() {
  local dir="${1:?usage: postgresql-server.sh log DIR}"
  cat "$dir/server.log"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  log) shift; log "$@" ;;
  halt) shift; halt "$@" ;;
  restart) shift; restart "$@" ;;
  pgbouncer) shift; pgbouncer_start "$@" ;;
  pgbouncer-stop) shift; pgbouncer_stop "$@" ;;
  *) echo "usage: $0 start [DIR [PORT]] | stop DIR | halt DIR | restart DIR | log DIR | pgbouncer DIR MODE | pgbouncer-stop DIR MODE" >&2; exit 2 ;;
esac
