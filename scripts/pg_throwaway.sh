#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and benchmarks: `start DIR` initialises a cluster in
# DIR (a new temp dir by default), starts it on a local socket and 127.0.0.1, and prints its URL;
# `stop DIR` stops it and removes DIR. PostgreSQL refuses to run as root, so as root the server runs
# as the `postgres` system user (Debian's `postgresql` package creates it).
set -euo pipefail

bin_dir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$found" ] && [ -x "$found/initdb" ]; then echo "$found"; return; fi
    if command -v initdb >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v initdb)")"; return
    fi
    echo "pg_throwaway: no initdb found (install Debian's postgresql package)" >&2
    exit 1
}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then
        # runuser keeps no environment of root's; the arguments are passed as they are.
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

cmd=${1:-}
case "$cmd" in
start)
    dir=${2:-$(mktemp -d /tmp/bestie-pg.XXXXXX)}
    mkdir -p "$dir"
    BIN=$(bin_dir)
    port=${PGPORT_THROWAWAY:-$(free_port)}
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    as_server_user "$BIN/initdb" -D "$dir/data" -U bestie --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    # Small and quick: no fsync (a throwaway cluster), enough connections for the many-writers test.
    cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 100
shared_buffers = 128MB
CONF
    as_server_user "$BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    as_server_user "$BIN/createdb" -h 127.0.0.1 -p "$port" -U bestie bestie
    echo "$port" >"$dir/port"
    echo "postgresql://bestie@127.0.0.1:$port/bestie"
    echo "PGDIR=$dir" >&2
    ;;
stop)
    dir=${2:?usage: pg_throwaway.sh stop DIR}
    [ -d "$dir/data" ] || exit 0
    BIN=$(bin_dir)
    as_server_user "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
*)
    echo "usage: pg_throwaway.sh start [DIR] | stop DIR" >&2
    exit 2
    ;;
esac
