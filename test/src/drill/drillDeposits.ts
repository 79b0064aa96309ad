import type { Anvil, TestToken } from '@walletd/test-harness';

export interface SentDeposit {
  hash: string;
  asset: 'ETH' | 'USDC';
  amount: bigint;
}

/**
 * `n` more deposits appended to `sent`: every fourth a token mint, the rest ETH, each in its own
 * block (anvil mines each transaction), spread over `addresses`; amounts all different.
 */
export async function sendDeposits(
  chain: { anvil: Anvil; usdc: TestToken },
  addresses: string[],
  sent: SentDeposit[],
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const k = sent.length;
    const to = addresses[k % addresses.length] as string;
    if (k % 4 === 3) {
      const amount = BigInt(k + 1) * 1_000_000n + 1n;
      sent.push({ hash: await chain.usdc.mint(to, amount), asset: 'USDC', amount });
    } else {
      const amount = 10n ** 15n + BigInt(k);
      sent.push({ hash: await chain.anvil.send(to, amount), asset: 'ETH', amount });
    }
  }
}
