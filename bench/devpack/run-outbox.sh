#!/usr/bin/env bash
# On the device machine (call 1, carry .devpack): unpacks node and the tree into /opt/devrun, which a
# warm machine keeps for the next call (ignored paths under the repository root are not kept), then
# runs the outbox bench. BENCH_CMD replaces the bench command (`true`: unpack only).
set -uo pipefail
D=$PWD; R=/opt/devrun; OUTD=${OUT:-/tmp/out}
mkdir -p "$R/m" "$R/bin" "$OUTD"
t0=$(date +%s)
unxz() { python3 -c "import lzma,sys;sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$1"; }
unxz .devpack/node.xz > "$R/bin/node" && chmod +x "$R/bin/node"
(cd "$R/m" && unxz "$D/.devpack/tree.tar.xz" | tar -xf -)
export PATH=$R/bin:$PATH
echo "unpacked in $(($(date +%s) - t0)) s; node $(node --version); $(nproc) cpus; $(uname -r)" | tee "$OUTD/outbox.log"
cd "$R/m"
# --line-buffered: a run cut off by the call's limit still shows how far it got.
${BENCH_CMD:-env BENCH_MODES=paced,backlog,isolation BENCH_DEAD=0,10 BENCH_FRESH_DEAD=0,10 node bench/run.js outbox} 2>&1 |
  grep --line-buffered -v '"level"' | tee -a "$OUTD/outbox.log"
echo "exit ${PIPESTATUS[0]} after $(($(date +%s) - t0)) s" | tee -a "$OUTD/outbox.log"
cp bench/README.md "$OUTD/bench-README-outbox.md"
