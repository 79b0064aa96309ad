import type { Db } from '@walletd/core';

export interface HistoryScope {
  companyId: number;
  chain: string;
  network: string;
  walletIds: number[];
  addressIds: number[];
  webhookId: number;
}

export function seedHistoryScope(
  db: Db,
  opts: { companyId: number; chain?: string; network?: string; wallets?: number },
): Promise<HistoryScope>;

export function seedHistory(
  db: Db,
  scope: HistoryScope,
  opts: { from?: number; to: number; assetKey: string; pending?: number; withdrawalEvery?: number },
): Promise<void>;

export function historyTime(i: number): Date;
