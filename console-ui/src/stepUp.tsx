import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from './api';
import { CodeField } from './fields';
import { passkeyStepUp } from './passkeys';

/** What a step-up is given: a TOTP code typed in, or the member's passkey. */
export type StepUpProof = { code: string } | { passkey: true };

const WRONG_CODE = 'That authenticator code is incorrect or was already used. Wait for the next code and try again.';

/**
 * Runs a change that may need a step-up: it is sent as is first (a sign-in or step-up from the
 * last minutes counts, and a TOTP step is accepted once, so asking up front could burn the code
 * just used); on 403 step_up_required the page shows <StepUpForm>, which posts the fresh code and
 * sends the same change again.
 */
export function useStepUp(setError: (message: string | null) => void) {
  const [pending, setPending] = useState<{ what: string; change: () => Promise<void> } | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (what: string, change: () => Promise<void>, proof?: StepUpProof) => {
    setBusy(true);
    setError(null);
    try {
      if (proof && 'passkey' in proof) await passkeyStepUp();
      else if (proof) await api('POST', '/step-up', { code: proof.code.trim() });
      await change();
      setPending(null);
    } catch (e) {
      const wrongCode = e instanceof ApiError && e.code === 'unauthorized';
      if (e instanceof ApiError && e.code === 'step_up_required') setPending({ what, change });
      else {
        setError(wrongCode ? WRONG_CODE : errorText(e));
        // A wrong code leaves the form open for the next one; any other refusal closes it.
        if (!wrongCode) setPending(null);
      }
    } finally {
      setBusy(false);
    }
  };
  return { pending, busy, run, cancel: () => setPending(null) };
}

export type StepUp = ReturnType<typeof useStepUp>;

/** The code form a change waits on, when the server asked for a step-up; a passkey button when the member has one. */
export function StepUpForm({ step, passkey = false }: { step: StepUp; passkey?: boolean }) {
  const [code, setCode] = useState('');
  const p = step.pending;
  if (!p) return null;
  return (
    <form
      class="step-up"
      onSubmit={(e) => {
        e.preventDefault();
        void step.run(p.what, p.change, { code }).then(() => setCode(''));
      }}
    >
      <p>
        To {p.what}, confirm with a fresh code from your authenticator app{passkey ? ', or with your passkey' : ''}.
      </p>
      <CodeField label="Authenticator code" value={code} onValue={setCode} />
      <div class="actions">
        <button type="submit" disabled={step.busy}>
          Confirm
        </button>
        {passkey && (
          <button type="button" disabled={step.busy} onClick={() => void step.run(p.what, p.change, { passkey: true })}>
            Use a passkey
          </button>
        )}
        <button type="button" class="secondary" onClick={step.cancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
