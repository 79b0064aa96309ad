import { api, mayMoveFunds, type Me, type Withdrawal, when } from '../api';
import { StepUpForm, useStepUp } from '../stepUp';

const KIND_TEXT: Record<NonNullable<Withdrawal['attempts']>[number]['kind'], string> = {
  original: 'original',
  speed_up: 'speed-up',
  cancel: 'cancel on chain',
};

/** The transactions a withdrawal sent on its nonce or coins: hash, what it was, the most it can cost. */
export function Attempts({ w }: { w: Withdrawal }) {
  if (!w.attempts || w.attempts.length === 0) return null;
  return (
    <>
      <h2>Transactions</h2>
      <p class="muted">Only one of these can land; whichever does settles the withdrawal.</p>
      <table data-testid="attempts">
        <thead>
          <tr>
            <th>Hash</th>
            <th>Kind</th>
            <th>Fee cap</th>
            <th>Sent</th>
          </tr>
        </thead>
        <tbody>
          {w.attempts.map((a) => (
            <tr key={a.txHash}>
              <td>
                <code>{a.txHash}</code>
              </td>
              <td>{KIND_TEXT[a.kind]}</td>
              <td>
                {a.feeCap.amount} {a.feeCap.asset.symbol}
              </td>
              <td>{when(a.at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * Speed up and Cancel on chain for a broadcast withdrawal (issue 46), each behind a step-up: the
 * server asks for a fresh code (403 step_up_required) and <StepUpForm> sends the same call again.
 * `replaces` is the transaction this page shows as the latest, so a second click on a stale page
 * is refused (409) instead of replacing a replacement.
 */
export function StuckPayoutActions({
  w,
  me,
  onDone,
  setError,
}: {
  w: Withdrawal;
  me: Me;
  onDone: (w: Withdrawal) => void;
  setError: (e: string | null) => void;
}) {
  const step = useStepUp(setError);
  if (w.status !== 'broadcast' || !mayMoveFunds(me)) return null;
  const latest = w.attempts?.at(-1)?.txHash ?? w.txHash ?? undefined;
  const cancelling = w.attempts?.at(-1)?.kind === 'cancel';
  const replace = (path: 'speed-up' | 'cancel-onchain', what: string) =>
    step.run(what, async () => {
      onDone(await api<Withdrawal>('POST', `/withdrawals/${w.id}/${path}`, latest ? { replaces: latest } : {}));
    });
  return (
    <>
      <h2>Stuck?</h2>
      <p class="muted">
        Replace the transaction in the node's pool: a speed-up pays the same at a higher fee; a cancel on chain pays nothing (the fee is
        still paid). Whichever transaction lands settles the withdrawal.
      </p>
      <div class="actions">
        <button type="button" disabled={step.busy || cancelling} onClick={() => void replace('speed-up', `speed up withdrawal #${w.id}`)}>
          Speed up
        </button>
        <button
          type="button"
          class="secondary"
          disabled={step.busy || cancelling}
          onClick={() => void replace('cancel-onchain', `cancel withdrawal #${w.id} on chain`)}
        >
          Cancel on chain
        </button>
      </div>
      <StepUpForm step={step} passkey={me.passkeys > 0} />
    </>
  );
}
