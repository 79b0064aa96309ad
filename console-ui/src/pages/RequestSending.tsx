import { useEffect, useState } from 'preact/hooks';
import { api, type InboxRequest, type Me, mayMoveFunds, when, type Withdrawal } from '../api';
import { ErrorLine } from '../fields';
import { navigate } from '../router';
import { shownHash } from '../withdrawalHash';
import { StepUpForm, useStepUp } from '../stepUp';

/** Withdrawal states that still move on their own (the tracker), so the page keeps reading them. */
const MOVING = new Set(['prepared', 'signed', 'broadcast']);
/** States a person's Send still moves. */
const UNSENT = new Set(['prepared', 'signed']);
const POLL_MS = 3000;

const onApprovalText = (r: InboxRequest): string =>
  r.onApproval === 'send'
    ? 'sent at once when the quorum is reached'
    : r.onApproval === 'wait_for_send'
      ? 'waits for an owner or admin to press Send'
      : 'decided when the quorum is reached';

/**
 * What happens after the quorum (issue 42 §6): whether the request sends at once or waits for a
 * Send, a funds-short approval's expiry, the withdrawal's live state read every few seconds until
 * it is final (confirmed, rejected, cancelled), and Send (step-up) for owners and admins.
 */
export function RequestSending({ req, me, onChange }: { req: InboxRequest; me: Me; onChange: (r: InboxRequest) => void }) {
  const [w, setW] = useState<Withdrawal | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const step = useStepUp(setError);
  const wid = req.withdrawalId;

  useEffect(() => {
    if (wid === null) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () =>
      api<Withdrawal>('GET', `/withdrawals/${wid}`)
        .then((x) => {
          if (stop) return;
          setW(x);
          if (MOVING.has(x.status)) timer = setTimeout(read, POLL_MS);
        })
        .catch((e) => !stop && setError(String(e instanceof Error ? e.message : e)));
    void read();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [wid, sent]);

  const send = () =>
    step.run('send this withdrawal', async () => {
      const answer = await api<{ request: InboxRequest; withdrawal: Withdrawal | null }>(
        'POST',
        `/requests/${encodeURIComponent(String(req.id))}/send`,
      );
      onChange(answer.request);
      setSent(`Sent: withdrawal #${answer.withdrawal?.id} is ${answer.withdrawal?.status}.`);
    });

  if (req.status === 'pending' || req.status === 'rejected') return null;
  const hash = w && shownHash(w);
  const canSend = req.status === 'approved' && (wid === null || (w !== null && UNSENT.has(w.status)));
  return (
    <section class="sending" data-testid="request-sending">
      <h2>Sending</h2>
      <dl class="facts">
        <dt>At approval</dt>
        <dd data-testid="on-approval">{onApprovalText(req)}</dd>
        {req.fundsShortSince && (
          <>
            <dt>Funds short</dt>
            <dd class="error" data-testid="funds-short">
              approved while funds were short (since {when(req.fundsShortSince)});{' '}
              {req.status === 'expired'
                ? `expired on ${when(req.expiresAt ?? req.fundsShortSince)}: it will not be paid. Propose it again if it is still due.`
                : `expires on ${when(req.expiresAt ?? req.fundsShortSince)} unless it is prepared before.`}
            </dd>
          </>
        )}
        {wid !== null && (
          <>
            <dt>Withdrawal</dt>
            <dd data-testid="withdrawal-state">
              <a
                href={`/console/withdrawals/${wid}`}
                onClick={(e) => {
                  e.preventDefault();
                  navigate(`/console/withdrawals/${wid}`);
                }}
              >
                #{wid}
              </a>{' '}
              {w ? <span class={`status ${w.status}`}>{w.status}</span> : 'loading…'}
              {w?.confirmations !== null &&
                w?.confirmations !== undefined &&
                ` · ${w.confirmations} confirmation${w.confirmations === 1 ? '' : 's'}`}
              {hash && (
                <>
                  {' '}
                  <code>{hash.hash}</code>
                  {hash.note && <span class="muted"> ({hash.note})</span>}
                </>
              )}
              {w !== null && (w.status === 'signed' || w.status === 'broadcast') && <span class="muted"> (updating)</span>}
              {w?.reason && <div class="error">{w.reason}</div>}
            </dd>
          </>
        )}
      </dl>
      {sent && (
        <p class="notice" role="status" data-testid="send-outcome">
          {sent}
        </p>
      )}
      <ErrorLine error={error} />
      {canSend &&
        step.pending === null &&
        (mayMoveFunds(me) ? (
          <div class="actions">
            <button type="button" disabled={step.busy} onClick={() => void send()}>
              Send
            </button>
          </div>
        ) : (
          <p class="muted">An owner or admin sends it.</p>
        ))}
      <StepUpForm step={step} />
    </section>
  );
}
