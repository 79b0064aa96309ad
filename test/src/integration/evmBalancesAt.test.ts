import type { AssetRef, BlockRef, ChainPlugin, ChainReader } from '@walletd/plugin-kit';
import { createEvmPlugin } from '@walletd/plugin-evm';
import { ANVIL_FUNDER, type Anvil, type TestToken, deployTestToken, startAnvil } from '@walletd/test-harness';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const asset = (contractAddress: string): AssetRef => ({
  key: `ethereum:devnet:${contractAddress}`,
  symbol: 'X',
  decimals: 6,
  contractAddress,
});
/** Creation code that deploys `runtime` (PUSH1 len, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 len, PUSH1 0, RETURN). */
const deployer = (runtime: string) => {
  const len = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${len}600c60003960${len}6000f3${runtime}`;
};
/** A "token" whose balanceOf answers 64 bytes (the word 1, then a zero word): no plain balance. */
const SIXTY_FOUR_BYTES = deployer('600160005260406000f3');
/** A "token" whose every call reverts. */
const REVERTS = deployer('60006000fd');

/**
 * Issue 41 §3's balance check reads one BalancesAt `eth_call` per block side on anvil (a real EVM
 * running the constructor on past states), and reads what a plain `eth_call` of `balanceOf` would:
 * a token's balances, 0 where the address has no code, and, for an answer that is no plain
 * balance, that one pair read alone, so the check judges exactly as it did pair by pair.
 */
describe('EVM balance check through BalancesAt (one eth_call per block side)', () => {
  let anvil: Anvil;
  let plugin: ChainPlugin;
  let usdc: TestToken;

  beforeAll(async () => {
    anvil = await startAnvil();
    plugin = createEvmPlugin();
    usdc = await deployTestToken(anvil, 'USD Coin', 'USDC', 6);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  /** A reader of its own (the check keeps balances per reader), recording each batch: "at" per BalancesAt call, "alone" per plain one. */
  function countedReader() {
    const inner = plugin.createReader('ethereum', 'devnet', { rpcUrl: anvil.url }) as ChainReader & {
      batch(calls: { method: string; params: [{ to?: string }, unknown] }[]): Promise<unknown[]>;
    };
    const batches: string[][] = [];
    const reader = {
      ...inner,
      batch: (calls: { method: string; params: [{ to?: string }, unknown] }[]) => {
        batches.push(calls.map((c) => (c.params[0].to ? 'alone' : 'at')));
        return inner.batch(calls);
      },
    };
    return { reader: reader as ChainReader, batches };
  }
  const blockOf = async (txHash: string): Promise<BlockRef> => {
    const receipt = await anvil.receipt(txHash);
    const b = await anvil.rpc<{ number: string; hash: string; parentHash: string }>('eth_getBlockByNumber', [receipt.blockNumber, false]);
    return { number: BigInt(b.number), hash: b.hash, parentHash: b.parentHash };
  };
  const deploy = async (data: string) => {
    const tx = await anvil.rpc<string>('eth_sendTransaction', [{ from: ANVIL_FUNDER, data }]);
    return { tx, address: (await anvil.receipt(tx)).contractAddress as string };
  };
  const check = (reader: ChainReader, block: BlockRef, changes: { toKey: string; token: string; delta: bigint }[]) =>
    (plugin.checkBalances as NonNullable<ChainPlugin['checkBalances']>)(
      reader,
      block,
      changes.map((c) => ({ toKey: c.toKey, assetKey: asset(c.token).key, delta: c.delta, asset: asset(c.token) })),
    );

  it('reads every credited (token, address) of a block in two eth_calls, before and after, and finds a false delta', async () => {
    await usdc.mint(A, 10n);
    await usdc.mint(ANVIL_FUNDER, 100n);
    const block = await blockOf(await usdc.batchTransfer([A, B], [5n, 7n]));
    const { reader, batches } = countedReader();
    const noCode = `0x${'c3'.repeat(20)}`;
    const changes = [
      { toKey: A, token: usdc.address, delta: 5n },
      { toKey: B, token: usdc.address, delta: 8n },
      { toKey: A, token: noCode, delta: 0n },
    ];
    expect(await check(reader, block, changes)).toEqual([{ toKey: B, assetKey: asset(usdc.address).key, delta: 8n, observed: 7n }]);
    expect(batches).toEqual([['at', 'at']]);
    // What each pair's plain eth_call reads, before and after: A 10 → 15, B 0 → 7, no code 0 → 0.
    const plain = async (token: string, holder: string, blockHash: string) =>
      anvil.rpc<string>('eth_call', [{ to: token, data: `0x70a08231${holder.slice(2).padStart(64, '0')}` }, { blockHash }]);
    expect(
      await Promise.all(
        [block.parentHash, block.hash].flatMap((h) => [plain(usdc.address, A, h), plain(usdc.address, B, h), plain(noCode, A, h)]),
      ),
    ).toEqual([10n, 0n, '0x', 15n, 7n, '0x'].map((v) => (typeof v === 'string' ? v : `0x${v.toString(16).padStart(64, '0')}`)));
  });

  it('reads a token whose answer is no plain balance alone, as a plain eth_call reads it', async () => {
    const { tx, address } = await deploy(SIXTY_FOUR_BYTES);
    const block = await blockOf(tx);
    const { reader, batches } = countedReader();
    // Before its block the address had no code (0); after it, `0x…01` followed by a zero word, read whole: 2^256.
    expect(await check(reader, block, [{ toKey: A, token: address, delta: 0n }])).toEqual([
      { toKey: A, assetKey: asset(address).key, delta: 0n, observed: 2n ** 256n },
    ]);
    expect(batches).toEqual([['at', 'at'], ['alone']]);
  });

  it('fails the read where the token reverts, as a plain eth_call does', async () => {
    const { address } = await deploy(REVERTS);
    const block = await blockOf(await usdc.transfer(A, 1n));
    const { reader, batches } = countedReader();
    await expect(check(reader, block, [{ toKey: A, token: address, delta: 0n }])).rejects.toMatchObject({ code: 'node_error' });
    // It reverts on both sides: both pairs read alone, and the plain read's error is the check's.
    expect(batches).toEqual([
      ['at', 'at'],
      ['alone', 'alone'],
    ]);
  });
});
