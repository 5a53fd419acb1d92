# shellcheck shell=bash
# A throwaway nginx for the benchmarks: serves a static directory on a free
# loopback port, as the current user (root or not), with every file it writes
# inside one temp dir. Source it, then:
#
#   source Benchmarks/nginx.sh
#   nginx_start /tmp/site      # exports NGINX_PORT (and NGINX_DIR), waits until it answers
#   curl "http://127.0.0.1:$NGINX_PORT/"
#   nginx_stop                 # stops it, removes the temp dir
#
# Installs nginx-light with apt (through sudo when not root) if nginx is missing.
# Safe to source from a `set -euo pipefail` script; sets no shell options itself.

# The nginx binary, or empty. /usr/sbin is not on a normal user's PATH on Debian.
_nginx_bin() {
  if command -v nginx >/dev/null 2>&1; then
    command -v nginx
  elif [ -x /usr/sbin/nginx ]; then
    echo /usr/sbin/nginx
  fi
}

_nginx_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "nginx: installing nginx-light" >&2
  # Debian's postinst tries to start the system nginx on :80; that may fail
  # (port taken, no init system) without the package failing to install.
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light >&2; then
    $sudo apt-get update >&2 &&
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx-light >&2
  fi
}

# A free TCP port on 127.0.0.1 (the kernel's pick for port 0). Another
# process could take it before nginx binds it; nginx_start retries then.
_nginx_free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# Succeeds once http://127.0.0.1:$1/ answers with any HTTP status.
_nginx_wait() {
  python3 - "$1" <<'EOF'
import sys, time, urllib.error, urllib.request
url = "http://127.0.0.1:%s/" % sys.argv[1]
deadline = time.monotonic() + 10
while True:
    try:
        urllib.request.urlopen(url, timeout=1).read()
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)  # it answered
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(1)
        time.sleep(0.05)
EOF
}

_nginx_write_config() {  # DIR SITE PORT
  local dir=$1 site=$2 port=$3 user_line=""
  # A master started as root runs its workers as "nobody", who can neither
  # read a site under /root nor write the 0700 temp dir: keep them as root.
  # As any other user the directive is ignored with a warning, so leave it out.
  if [ "$(id -u)" -eq 0 ]; then user_line="user root;"; fi
  cat >"$dir/nginx.conf" <<EOF
$user_line
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;

events {
    worker_connections 1024;
}

http {
    types {
        text/html html;
        text/css css;
        application/javascript js;
        image/png png;
        text/plain txt;
    }
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000;

    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;

    server {
        listen 127.0.0.1:$port;
        server_name localhost;
        root $site;
        index index.html;
    }
}
EOF
}

# nginx_start SITE_DIR: serve SITE_DIR on http://127.0.0.1:$NGINX_PORT/.
nginx_start() {
  if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: nginx_start SITE_DIR (an existing directory)" >&2
    return 2
  fi
  if [ -n "${NGINX_DIR:-}" ] && [ -f "$NGINX_DIR/nginx.pid" ]; then
    echo "nginx: already running on port ${NGINX_PORT:-?}; call nginx_stop first" >&2
    return 1
  fi
  local site bin dir port attempt
  site=$(cd "$1" && pwd -P) || return 1
  bin=$(_nginx_bin)
  if [ -z "$bin" ]; then
    _nginx_install || return 1
    bin=$(_nginx_bin)
    if [ -z "$bin" ]; then echo "nginx: not found after installing nginx-light" >&2; return 1; fi
  fi
  dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-nginx.XXXXXX") || return 1

  for attempt in 1 2 3 4 5; do
    port=$(_nginx_free_port) || { rm -rf "$dir"; return 1; }
    _nginx_write_config "$dir" "$site" "$port"
    # -p: prefix for relative paths; -e: the log nginx uses before it has read
    # the config (the default, /var/log/nginx/error.log, is root's).
    if "$bin" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" 2>>"$dir/error.log"; then
      if _nginx_wait "$port"; then
        export NGINX_PORT=$port NGINX_DIR=$dir
        echo "nginx: serving $site on http://127.0.0.1:$port/ (pid $(cat "$dir/nginx.pid"), files in $dir)" >&2
        return 0
      fi
      echo "nginx: started but port $port does not answer" >&2
      [ -f "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null
      break
    fi
    # Most likely the port was taken between picking and binding: try another.
    if ! grep -q "Address already in use" "$dir/error.log" 2>/dev/null; then break; fi
    echo "nginx: port $port was taken (attempt $attempt), trying another" >&2
  done
  echo "nginx: failed to start; its log:" >&2
  cat "$dir/error.log" >&2 2>/dev/null
  rm -rf "$dir"
  return 1
}

# nginx_stop: stop the nginx nginx_start started and remove its temp dir.
nginx_stop() {
  local dir=${NGINX_DIR:-} pid="" i
  if [ -z "$dir" ]; then return 0; fi
  if [ -f "$dir/nginx.pid" ]; then pid=$(cat "$dir/nginx.pid"); fi
  if [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; then
    # The master removes its pid file once it and its worker have exited.
    for i in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
      pkill -KILL -P "$pid" 2>/dev/null  # its worker, which outlives a killed master
      kill -KILL "$pid" 2>/dev/null
    fi
  fi
  rm -rf "$dir"
  unset NGINX_PORT NGINX_DIR
  return 0
}
