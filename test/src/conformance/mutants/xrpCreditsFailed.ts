import { rewritingJson } from './families';

/** Mutant: reads every XRP transaction as tesSUCCESS, so a tec payment (fee claimed, nothing delivered) is credited. */
export const detect = rewritingJson('xrp', (b) => {
  for (const t of b.ledger?.transactions ?? []) for (const m of [t.metaData, t.meta]) if (m) m.TransactionResult = 'tesSUCCESS';
});
