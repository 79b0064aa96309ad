import { useEffect, useState } from 'preact/hooks';
import type { ConsoleAddress, ConsoleAddressPage } from '@walletd/schemas';
import { api, errorText, when } from '../api';
import { ErrorLine, Pager } from '../fields';
import { KMS_KEY_TEXT, KeyHeldMark, KmsKeyMark, TOKEN_KEY_TEXT, TokenKeyMark } from '../keyHeld';
import type { PageProps } from '../routes';
import { navigate } from '../router';

const KIND_TEXT: Record<ConsoleAddress['kind'], string> = {
  deposit: 'deposit',
  account: 'account',
  gas_station: 'gas station',
};

/** Where the key is: its derivation from the wallet's mnemonic (index and path), or the mark of a key held in the token or KMS. */
function KeyCell({ a }: { a: ConsoleAddress }) {
  if (a.keyHeldIn) return <KeyHeldMark held={a.keyHeldIn} />;
  return (
    <>
      #{a.index} <code class="muted">{a.path}</code>
    </>
  );
}

/**
 * A wallet's addresses, oldest first, paged by the server's cursor: each address with its label,
 * what it is for, where its key is (derived, or generated in the PKCS#11 token: issue 45 §3) and
 * when it was made. Reached from the overview's wallet names.
 */
export function WalletAddresses({ params }: PageProps) {
  const id = params[0] ?? '';
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<ConsoleAddressPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const after = cursors[cursors.length - 1];
  useEffect(() => {
    const q = new URLSearchParams({ limit: '50' });
    if (after) q.set('after', after);
    setError(null);
    api<ConsoleAddressPage>('GET', `/wallets/${encodeURIComponent(id)}/addresses?${q}`)
      .then(setPage)
      .catch((e) => {
        setPage(null);
        setError(errorText(e));
      });
  }, [id, after]);
  const go = (to: string) => (e: Event) => {
    e.preventDefault();
    navigate(to);
  };
  const anyInToken = page?.addresses.some((a) => a.keyHeldIn === 'token');
  const anyInKms = page?.addresses.some((a) => a.keyHeldIn === 'kms');
  return (
    <>
      <p>
        <a href="/console/" onClick={go('/console/')}>
          ← Overview
        </a>
      </p>
      <h1>{page ? `Addresses of ${page.wallet.name}` : 'Addresses'}</h1>
      <ErrorLine error={error} />
      {page === null && !error && <p>Loading…</p>}
      {page && (
        <>
          <p class="muted">
            {page.wallet.chain} / {page.wallet.network}
          </p>
          {page.addresses.length === 0 ? (
            <p data-testid="addresses-empty">
              No addresses yet: they are issued through the API (POST /v1/wallets/{page.wallet.id}/addresses).
            </p>
          ) : (
            <table data-testid="addresses" class="addresses">
              <thead>
                <tr>
                  <th>Address</th>
                  <th>Label</th>
                  <th>Kind</th>
                  <th>Key</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {page.addresses.map((a) => (
                  <tr key={a.id} data-testid={`address-${a.id}`}>
                    <td>
                      <code>{a.address}</code>
                      {a.destinationTag !== null && <span class="muted"> tag {a.destinationTag}</span>}
                    </td>
                    <td>{a.label ?? '—'}</td>
                    <td>{KIND_TEXT[a.kind]}</td>
                    <td class="key">
                      <KeyCell a={a} />
                    </td>
                    <td class="when">{when(a.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <dl class="muted key-legend" data-testid="key-legend">
            <dt>#index and path</dt>
            <dd>derived from the wallet's mnemonic (in its secret export).</dd>
            <dt>
              <TokenKeyMark />
            </dt>
            <dd>
              {anyInToken
                ? TOKEN_KEY_TEXT
                : 'an address made with keyHeldIn "token" while the master key is in a PKCS#11 token: its key never leaves the token.'}
            </dd>
            {anyInKms && (
              <>
                <dt>
                  <KmsKeyMark />
                </dt>
                <dd>{KMS_KEY_TEXT}</dd>
              </>
            )}
          </dl>
        </>
      )}
      <Pager cursors={cursors} setCursors={setCursors} next={page?.next} />
    </>
  );
}
