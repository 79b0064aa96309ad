import type { ConsoleRequestFacts } from '@walletd/schemas';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';

/**
 * What an approver weighs, as rows of the request's facts (issue 47 §4): the wallet's available
 * balance of the asset, each destination's history with the company and its address-book name, and
 * the sentence of each policy asking for the approval. Read again when `version` changes (a vote).
 */
export function RequestFacts({ id, version }: { id: string; version: string }) {
  const [facts, setFacts] = useState<ConsoleRequestFacts | null>(null);
  useEffect(() => {
    api<ConsoleRequestFacts>('GET', `/requests/${encodeURIComponent(id)}/facts`)
      .then(setFacts)
      .catch(() => setFacts(null));
  }, [id, version]);
  if (!facts) return null;
  return (
    <>
      <dt>Wallet holds</dt>
      <dd data-testid="fact-available">
        {facts.available} {facts.symbol} available
      </dd>
      <dt>Destination</dt>
      <dd data-testid="fact-destinations">
        {facts.destinations.map((d) => (
          <div key={d.address}>
            <code>{d.address}</code>:{' '}
            {d.paidBefore === 0 ? 'never paid before' : `paid ${d.paidBefore} time${d.paidBefore === 1 ? '' : 's'} before`}
            {d.addressBook ? `, in the address book as “${d.addressBook}”` : ', not in the address book'}
          </div>
        ))}
      </dd>
      <dt>Why approval</dt>
      <dd data-testid="fact-policies">
        {facts.policies.length === 0
          ? 'No policy asks for approval now.'
          : facts.policies.map((p) => (
              <div key={p.id}>
                #{p.id}: {p.sentence}
              </div>
            ))}
      </dd>
    </>
  );
}
