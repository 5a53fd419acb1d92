# shellcheck shell=bash
# A throwaway PostgreSQL server on 127.0.0.1, for Scripts/test and
# Scripts/bench. Source it, then:
#
#   postgres_start    # initdb in a temp dir, start on a free port, export POSTGRES_URL
#   postgres_restart  # fast shutdown (every connection ends), start again 3 s later
#   postgres_stop     # stop it at once and remove its files
#
# The postgresql package must be installed (Scripts/setup postgresql).
# initdb refuses to run as root, so as root the server runs as `postgres`.

postgres_start() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  POSTGRES_BIN=$bin
  POSTGRES_DIR=$(mktemp -d /tmp/navwatch-postgres.XXXXXX)
  POSTGRES_AS=()
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$POSTGRES_DIR"
    POSTGRES_AS=(runuser -u postgres --)
  fi
  "${POSTGRES_AS[@]}" "$bin/initdb" -D "$POSTGRES_DIR/data" -A trust -U navwatch >/dev/null
  POSTGRES_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  postgres_run
  export POSTGRES_URL="postgres://navwatch@127.0.0.1:$POSTGRES_PORT/postgres?sslmode=disable"
}

# Starts the server postgres_start made, on its port.
postgres_run() {
  # -F: no fsync; the data is thrown away afterwards.
  "${POSTGRES_AS[@]}" "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/log" -w \
    -o "-h 127.0.0.1 -p $POSTGRES_PORT -k $POSTGRES_DIR -F -c max_connections=200" start >/dev/null
}

# Stops the server with a fast shutdown, which ends every connection and
# transaction, and starts it again $1 seconds later (default 3), on the same
# port with the same data: what a restart of a real server does to workers.
postgres_restart() {
  "${POSTGRES_AS[@]}" "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m fast -w stop >/dev/null
  sleep "${1:-3}"
  postgres_run
}

postgres_stop() {
  [ -n "${POSTGRES_DIR:-}" ] || return 0
  "${POSTGRES_AS[@]}" "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$POSTGRES_DIR"
  POSTGRES_DIR=""
}
