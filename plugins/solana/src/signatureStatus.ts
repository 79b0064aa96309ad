import type { SolanaReader } from './reader';

export async function signatureStatus(reader: SolanaReader, signature: string): Promise<{ slot: number | string; err: unknown } | null> {
  const r = await reader.call<{ value: ({ slot: number | string; err: unknown } | null)[] }>('getSignatureStatuses', [
    [signature],
    { searchTransactionHistory: true },
  ]);
  return r.value[0] ?? null;
}
