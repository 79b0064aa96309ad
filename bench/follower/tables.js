/**
 * The follower bench's tables: one row per (traces mode, kind of block, depth), then what reading
 * the traces costs: the follower with traces against without, on the same blocks and depth.
 */
const ms = (v) => (v === null || v === undefined ? 'n/a' : v.toFixed(2));
function renderTables(rows) {
  const main = [
    '| traces | blocks | count | block bytes | RPC-only floor blocks/s | floor CPU ms/block | pipelineDepth | RPC-only, depth in flight blocks/s | follower blocks/s | follower / floor | follower / in-flight floor | seconds | follower CPU ms/block | deposits recorded | floor: anvil CPU ms/block | follower: PostgreSQL CPU ms/block | follower: anvil CPU ms/block |',
    '| :-- | :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...rows.map(
      (r) =>
        `| ${r.mode} | ${r.label} | ${r.n} | ${Math.round(r.bytes).toLocaleString('en-US')} | ${r.floorRate.toFixed(1)} | ${r.floorCpu.toFixed(2)} | ${r.depth} | ${r.inFlightRate.toFixed(1)} | ${r.rate.toFixed(1)} | ${(r.rate / r.floorRate).toFixed(2)}x | ${(r.rate / r.inFlightRate).toFixed(2)}x | ${r.seconds.toFixed(2)} | ${r.cpuPerBlock.toFixed(2)} | ${r.deposits} | ${ms(r.floorAnvil)} | ${ms(r.pgPerBlock)} | ${ms(r.anvilPerBlock)} |`,
    ),
  ];
  const pairs = rows
    .filter((r) => r.mode === 'trace')
    .flatMap((t) => {
      const off = rows.find((o) => o.mode === 'off' && o.label === t.label && o.depth === t.depth);
      return off
        ? [
            `| ${t.label} | ${t.depth} | ${off.rate.toFixed(1)} | ${t.rate.toFixed(1)} | ${(t.rate / off.rate).toFixed(2)}x | ${off.cpuPerBlock.toFixed(2)} | ${t.cpuPerBlock.toFixed(2)} | ${off.deposits} | ${t.deposits} |`,
          ]
        : [];
    });
  if (pairs.length === 0) return main.join('\n');
  return [
    ...main,
    '',
    '| blocks | pipelineDepth | follower blocks/s, traces off | with traces | with / without | CPU ms/block off | CPU ms/block traces | deposits off | deposits traces |',
    '| :-- | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...pairs,
  ].join('\n');
}

module.exports = { renderTables };
