import type { ConsoleApprovalSettings, ConsoleOnApproval } from '@walletd/schemas';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Me } from '../api';
import { ErrorLine } from '../fields';
import { StepUpForm, useStepUp } from '../stepUp';

type OnApproval = ConsoleOnApproval;
type Settings = ConsoleApprovalSettings;

const words = (v: OnApproval) => (v === 'send' ? 'send at once' : "wait for a person's Send");

/**
 * The company's default for what a request's quorum does where no policy says (issue 42 §6).
 * Owners change it (the server asks for a step-up); admins see it.
 */
export function ApprovalDefault({ me }: { me: Me }) {
  const [s, setS] = useState<Settings | null>(null);
  const [error, setError] = useState<string | null>(null);
  const step = useStepUp(setError);
  useEffect(() => {
    api<Settings>('GET', '/approval-settings')
      .then(setS)
      .catch((e) => setError(errorText(e)));
  }, []);
  if (!s) return <ErrorLine error={error} />;
  const save = (v: string) =>
    step.run('change what a quorum does', async () => {
      setS(await api<Settings>('PUT', '/approval-settings', { onApproval: v === '' ? null : v }));
    });
  return (
    <section data-testid="approval-default">
      <h2>At the quorum</h2>
      <p>
        Approved requests {words(s.onApproval)} unless a policy below says otherwise
        {s.companyDefault === null ? ` (the deployment's default)` : ''}.
      </p>
      {me.role === 'owner' && (
        <label>
          Company default
          <select name="companyOnApproval" value={s.companyDefault ?? ''} onChange={(e) => void save(e.currentTarget.value)}>
            <option value="">the deployment's default ({words(s.deploymentDefault)})</option>
            <option value="wait_for_send">wait for a person's Send</option>
            <option value="send">send at once</option>
          </select>
        </label>
      )}
      <ErrorLine error={error} />
      <StepUpForm step={step} />
    </section>
  );
}
