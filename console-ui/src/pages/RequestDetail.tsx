import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, approvalsOf, discountText, errorText, type InboxRequest, type Me, mayMoveFunds, type VoteAnswer } from '../api';
import { navigate } from '../router';
import { policyList, proposer } from './Requests';
import { CodeField, ErrorLine } from '../fields';
import { passkeyStepUp } from '../passkeys';
import type { StepUpProof } from '../stepUp';
import { RequestFacts } from './RequestFacts';
import { RequestSending } from './RequestSending';

type Vote = 'approve' | 'reject';

/** The server's refusals of a vote, in words for the person at the screen; anything else keeps the server's message. */
function voteErrorText(e: unknown): string {
  if (!(e instanceof ApiError)) return errorText(e);
  if (e.code === 'forbidden') return 'You proposed this request, so you cannot approve it: another member has to.';
  if (e.code === 'role_insufficient') return `${e.message}.`;
  if (e.code === 'conflict') return `Not counted: ${e.message}.`;
  if (e.code === 'not_found') return 'This request does not exist (or belongs to another company).';
  if (e.code === 'unauthorized') return 'That authenticator code is incorrect or was already used. Wait for the next code and try again.';
  return e.message;
}

/** What a counted vote led to, in one sentence. */
function outcomeText(a: VoteAnswer): string {
  if (a.prepared && a.withdrawal && a.sent) return `Approved: quorum reached, withdrawal #${a.withdrawal.id} sent.`;
  if (a.prepared && a.withdrawal && a.notSent !== undefined)
    return `Approved: quorum reached, withdrawal #${a.withdrawal.id} prepared but not sent (${a.notSent}). Press Send to try again.`;
  if (a.prepared && a.withdrawal)
    return `Approved: quorum reached, withdrawal #${a.withdrawal.id} prepared; it goes out when someone presses Send.`;
  // The box below the votes says why and offers Prepare now; this line only tells what the vote did.
  if (a.reason !== undefined) return 'Your approval reached the quorum: the request is approved, its withdrawal not yet prepared.';
  if (a.request.status === 'rejected')
    return a.code === 'policy_denied' ? `Rejected by policy: ${a.message}` : 'Rejected. The request is closed.';
  if (a.request.status === 'approved') return `Approved. ${a.message}`;
  return `Your approval is recorded: ${approvalsOf(a.request)} of ${a.request.requiredApprovals} approvals so far, waiting for the others.`;
}

/**
 * One request with its votes, and Approve / Reject. A vote needs a step-up (a TOTP code from the
 * last few minutes; signing in with one counts): the page votes first and asks for a code only when
 * the server answers 403 step_up_required, then sends the code and the same vote again. Asking
 * before every vote would burn a code the member may just have used to sign in, and the server
 * refuses a code's 30-second step twice.
 */
export function RequestDetail({ id, me }: { id: string; me: Me }) {
  const [req, setReq] = useState<InboxRequest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [pending, setPending] = useState<Vote | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<InboxRequest>('GET', `/requests/${encodeURIComponent(id)}`)
      .then(setReq)
      .catch((e) => setError(voteErrorText(e)));
  }, [id]);

  const cast = async (vote: Vote, proof?: StepUpProof) => {
    setBusy(true);
    setError(null);
    try {
      if (proof && 'passkey' in proof) await passkeyStepUp();
      else if (proof) await api('POST', '/step-up', { code: proof.code.trim() });
      const answer = await api<VoteAnswer>('POST', `/requests/${encodeURIComponent(id)}/${vote}`);
      setReq(answer.request);
      setOutcome(outcomeText(answer));
      setPending(null);
      setCode('');
    } catch (e) {
      if (e instanceof ApiError && e.code === 'step_up_required') setPending(vote);
      else {
        setError(voteErrorText(e));
        // A wrong code leaves the code form open for the next one; any other refusal closes it.
        if (!(e instanceof ApiError && e.code === 'unauthorized')) setPending(null);
      }
    } finally {
      setBusy(false);
    }
  };

  // Retries building the withdrawal of an approved request (the server answers the same one if it exists).
  const prepare = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api<VoteAnswer>('POST', `/requests/${encodeURIComponent(id)}/prepare`);
      setReq(answer.request);
      setOutcome(answer.withdrawal ? `Prepared: withdrawal #${answer.withdrawal.id}.` : answer.message);
    } catch (e) {
      setError(`Still not prepared: ${errorText(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const back = (e: Event) => {
    e.preventDefault();
    navigate('/console/requests');
  };

  if (!req) {
    return (
      <>
        <p>
          <a href="/console/requests" onClick={back}>
            ← All requests
          </a>
        </p>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : (
          <p>Loading…</p>
        )}
      </>
    );
  }
  const mine = req.proposedByMember === me.memberId;
  const voted = req.votes.some((v) => v.memberId === me.memberId);
  const notPrepared = req.status === 'approved' && req.withdrawalId === null;
  return (
    <>
      <p>
        <a href="/console/requests" onClick={back}>
          ← All requests
        </a>
      </p>
      <h1>
        Request #{req.id} <span class={`status ${req.status}`}>{req.status}</span>
      </h1>
      <dl class="facts" data-testid="request-facts">
        <dt>Amount</dt>
        <dd>
          {req.amount} {req.asset.symbol} <span class="muted">({req.asset.key})</span>
        </dd>
        <dt>From wallet</dt>
        <dd>
          {req.walletName}
          {req.fromAddress && <code> {req.fromAddress}</code>}
        </dd>
        <dt>To</dt>
        <dd>
          {req.outputs.map((o) => (
            <div key={o.toAddress}>
              <code>{o.toAddress}</code> {req.outputs.length > 1 && `${o.amount} ${req.asset.symbol}`}
              {o.memo !== undefined && ` memo ${o.memo}`}
              {o.destinationTag !== undefined && ` tag ${o.destinationTag}`}
            </div>
          ))}
        </dd>
        {req.note && (
          <>
            <dt>Note</dt>
            <dd>{req.note}</dd>
          </>
        )}
        <dt>Proposed by</dt>
        <dd>
          {proposer(req)} on {new Date(req.createdAt).toLocaleString()}
        </dd>
        <dt>Asked by policies</dt>
        <dd>{policyList(req) || 'none now'}</dd>
        <RequestFacts id={id} version={`${req.status}:${req.votes.length}`} />
        <dt>Approvals</dt>
        <dd data-testid="approvals">
          {approvalsOf(req)} of {req.requiredApprovals}
        </dd>
        {req.lastError && !notPrepared && (
          <>
            <dt>Last error</dt>
            <dd class="error">{req.lastError}</dd>
          </>
        )}
      </dl>
      <h2>Votes</h2>
      {req.votes.length === 0 ? (
        <p class="muted">No votes yet.</p>
      ) : (
        <ul data-testid="votes">
          {req.votes.map((v) => (
            <li key={v.memberId}>
              {v.email} {v.decision === 'approve' ? 'approved' : 'rejected'} on {new Date(v.at).toLocaleString()}
              {v.decision === 'approve' && !v.counts && (
                <span class="muted" data-testid="vote-discounted">
                  {' '}
                  ({discountText(v)})
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {outcome && (
        <p class="notice" role="status" data-testid="vote-outcome">
          {outcome}
        </p>
      )}
      {notPrepared && (
        <div class="not-prepared" data-testid="not-prepared">
          <p>
            <strong>Approved, not yet prepared</strong>
            {req.lastError ? `: ${req.lastError}` : '.'}
          </p>
          {mayMoveFunds(me) ? (
            <button type="button" disabled={busy} onClick={() => void prepare()}>
              Prepare now
            </button>
          ) : (
            <p class="muted">An owner or admin can prepare it once the cause is fixed.</p>
          )}
        </div>
      )}
      <RequestSending req={req} me={me} onChange={setReq} />
      <ErrorLine error={error} />
      {req.status === 'pending' && !voted && pending === null && (
        <div class="actions">
          <button type="button" disabled={busy} onClick={() => void cast('approve')} title={mine ? 'You proposed it' : undefined}>
            Approve
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => void cast('reject')}>
            Reject
          </button>
        </div>
      )}
      {pending !== null && (
        <form
          class="step-up"
          onSubmit={(e) => {
            e.preventDefault();
            void cast(pending, { code });
          }}
        >
          <p>
            To {pending} this request, confirm with a fresh code from your authenticator app
            {me.passkeys > 0 ? ', or with your passkey' : ''}.
          </p>
          <CodeField label="Authenticator code" value={code} onValue={setCode} />
          <div class="actions">
            <button type="submit" disabled={busy}>
              Confirm and {pending}
            </button>
            {me.passkeys > 0 && (
              <button type="button" disabled={busy} onClick={() => void cast(pending, { passkey: true })}>
                Use a passkey and {pending}
              </button>
            )}
            <button type="button" class="secondary" onClick={() => setPending(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </>
  );
}
