import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { CodeField } from '../fields';

/** An action the server held back with 403 step_up_required, to run again once a fresh code is given. */
export interface HeldAction {
  /** What it does, in words: "invite ada@example.com". */
  what: string;
  run: () => Promise<void>;
}

/** True when the error is the server asking for a fresh authenticator code. */
export const needsStepUp = (e: unknown): boolean => e instanceof ApiError && e.code === 'step_up_required';

/**
 * Asks for a fresh authenticator code, sends it to /step-up and runs the held action again. The page
 * tries an action first and shows this only when the server asks: a sign-in code still counts for a
 * few minutes, and a code's 30-second step is accepted once.
 */
export function StepUpPrompt(props: { held: HeldAction; onCancel: () => void; onError: (message: string) => void }) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await api('POST', '/step-up', { code: code.trim() });
    } catch (err) {
      props.onError(
        err instanceof ApiError && err.code === 'unauthorized'
          ? 'That authenticator code is incorrect or was already used. Wait for the next code and try again.'
          : (err as Error).message,
      );
      setBusy(false);
      return;
    }
    await props.held.run();
    setBusy(false);
  };
  return (
    <form class="step-up" onSubmit={(e) => void submit(e)}>
      <p>To {props.held.what}, confirm with a fresh code from your authenticator app.</p>
      <CodeField label="Authenticator code" value={code} onValue={setCode} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Confirm
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
