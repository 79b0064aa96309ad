/** A labelled, required text input bound to one piece of state: every form of the console. */
export function Field(props: {
  label: string;
  name: string;
  type: 'email' | 'password' | 'text';
  autocomplete: string;
  value: string;
  onValue: (value: string) => void;
  /** Required unless said otherwise. */
  optional?: boolean;
}) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        // Preact's input types are a union keyed on each literal `type`; both of ours take the same attributes.
        type={props.type as 'password'}
        autocomplete={props.autocomplete}
        required={!props.optional}
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    </label>
  );
}

/** An authenticator (TOTP) code: numeric keyboard, the browser's one-time-code autofill. */
export function CodeField(props: { label: string; value: string; onValue: (value: string) => void }) {
  return (
    <label>
      {props.label}
      <input
        name="code"
        autocomplete="one-time-code"
        inputMode="numeric"
        required
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    </label>
  );
}

/** An error said in words, announced to screen readers; nothing when there is none. */
export function ErrorLine(props: { error: string | null | undefined }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

/**
 * Newest / Older under a keyset-paged table: `cursors` is the stack of page cursors walked so far
 * (`undefined` for the newest page), `next` the cursor of the page after the one shown.
 */
export function Pager(props: {
  cursors: (string | undefined)[];
  setCursors: (c: (string | undefined)[]) => void;
  next: string | null | undefined;
}) {
  const { cursors, setCursors, next } = props;
  return (
    <div class="actions">
      {cursors.length > 1 && (
        <button type="button" class="secondary" onClick={() => setCursors([undefined])}>
          Newest
        </button>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => setCursors([...cursors, next])}>
          Older
        </button>
      )}
    </div>
  );
}
