import { destinationForms } from '@walletd/plugin-kit';
import { evaluatePolicies, type SpendingPolicy, type WithdrawalContext } from './evaluatePolicies';

const ctx = (over: Partial<WithdrawalContext> = {}): WithdrawalContext => ({
  walletId: 1,
  assetKey: 'ethereum:mainnet:eth',
  decimals: 18,
  symbol: 'ETH',
  amount: 2n * 10n ** 18n,
  destinations: [['0xaaaa000000000000000000000000000000000001']],
  volume24h: 0n,
  approvals: null,
  ...over,
});
let next = 1;
const policy = (kind: SpendingPolicy['kind'], params: Record<string, unknown>, over: Partial<SpendingPolicy> = {}): SpendingPolicy => ({
  id: next++,
  name: kind,
  kind,
  params,
  walletIds: null,
  assetKey: null,
  enabled: true,
  ...over,
});
const ETH = (n: string) => (BigInt(n) * 10n ** 18n).toString();

describe('spending policies', () => {
  it('allows when nothing applies', () => {
    expect(evaluatePolicies([], ctx())).toEqual({ outcome: 'allow' });
    const elsewhere = policy('max_per_transaction', { max: '1' }, { walletIds: [9] });
    const otherAsset = policy('max_per_transaction', { max: '1' }, { assetKey: 'ethereum:mainnet:0xusdc' });
    const disabled = policy('max_per_transaction', { max: '1' }, { enabled: false });
    expect(evaluatePolicies([elsewhere, otherAsset, disabled], ctx())).toEqual({ outcome: 'allow' });
  });

  it('denies by destination lists, naming the rule and its id', () => {
    const deny = policy('deny_destinations', { addresses: ['0xAAAA000000000000000000000000000000000001'] });
    const r = evaluatePolicies([deny], ctx());
    expect(r).toEqual({
      outcome: 'refuse',
      code: 'policy_denied',
      policyIds: String(deny.id),
      message: `policy "deny_destinations" (id ${deny.id}): the destination is denied`,
    });
    const allow = policy('allow_destinations', { addresses: ['0xbbbb000000000000000000000000000000000002'] });
    expect(evaluatePolicies([allow], ctx())).toMatchObject({ code: 'policy_denied', policyIds: String(allow.id) });
    expect(evaluatePolicies([allow], ctx({ destinations: [['0xBBBB000000000000000000000000000000000002']] }))).toEqual({
      outcome: 'allow',
    });
  });

  it('names an account-tag destination by its account too: a listed account covers every tag, a listed tag only itself', () => {
    const account = 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe';
    // The tag in the address (r…:5, or an X-address: the same match key) or as destinationTag.
    const tagged = destinationForms('account-tag', `${account}:5`);
    const byField = destinationForms('account-tag', account, 5);
    expect(tagged).toEqual([`${account}:5`, account]);
    expect(byField).toEqual(tagged);
    expect(destinationForms('account-tag', account)).toEqual([account]);
    // Key-per-address keys are never split (a TON raw address has a colon of its own).
    expect(destinationForms('key-per-address', '0:83df' + 'a'.repeat(60))).toEqual(['0:83df' + 'a'.repeat(60)]);

    const denyAccount = policy('deny_destinations', { addresses: [account], matchKeys: [account] });
    expect(evaluatePolicies([denyAccount], ctx({ destinations: [tagged] }))).toMatchObject({ code: 'policy_denied' });
    const denyTag = policy('deny_destinations', { addresses: [`${account}:5`], matchKeys: [`${account}:5`] });
    expect(evaluatePolicies([denyTag], ctx({ destinations: [byField] }))).toMatchObject({ code: 'policy_denied' });
    expect(evaluatePolicies([denyTag], ctx({ destinations: [destinationForms('account-tag', account, 6)] }))).toEqual({ outcome: 'allow' });

    const allowTag = policy('allow_destinations', { addresses: [`${account}:5`], matchKeys: [`${account}:5`] });
    expect(evaluatePolicies([allowTag], ctx({ destinations: [tagged] }))).toEqual({ outcome: 'allow' });
    expect(evaluatePolicies([allowTag], ctx({ destinations: [[account]] }))).toMatchObject({ code: 'policy_denied' });
    const allowAccount = policy('allow_destinations', { addresses: [account], matchKeys: [account] });
    expect(evaluatePolicies([allowAccount], ctx({ destinations: [byField] }))).toEqual({ outcome: 'allow' });
  });

  it("compares destinations with the lists' match forms when they carry them (UTXO: output scripts)", () => {
    const script = '0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2';
    const deny = policy('deny_destinations', { addresses: ['bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'], matchKeys: [script] });
    expect(evaluatePolicies([deny], ctx({ destinations: [[script]] }))).toMatchObject({ code: 'policy_denied' });
    expect(evaluatePolicies([deny], ctx())).toEqual({ outcome: 'allow' });
  });

  it('caps a transaction and the rolling daily volume with exact amounts in the message', () => {
    const max = policy('max_per_transaction', { max: ETH('1') });
    expect(evaluatePolicies([max], ctx())).toMatchObject({
      code: 'policy_denied',
      message: expect.stringContaining('2 ETH exceeds the per-transaction maximum of 1 ETH'),
    });
    expect(evaluatePolicies([max], ctx({ amount: 10n ** 18n }))).toEqual({ outcome: 'allow' });
    const daily = policy('daily_volume', { max: ETH('5') });
    expect(evaluatePolicies([daily], ctx({ volume24h: 3n * 10n ** 18n + 1n }))).toMatchObject({
      code: 'policy_denied',
      message: expect.stringContaining('would bring the last 24 hours to 5.000000000000000001 ETH, above 5 ETH'),
    });
    expect(evaluatePolicies([daily], ctx({ volume24h: 3n * 10n ** 18n }))).toEqual({ outcome: 'allow' });
  });

  it('requires approval above a threshold, then counts sign-offs against the highest requirement', () => {
    const one = policy('approval_above', { threshold: ETH('1') });
    const two = policy('approval_above', { threshold: ETH('2'), approvals: 2 });
    const direct = evaluatePolicies([one, two], ctx());
    expect(direct).toMatchObject({
      outcome: 'refuse',
      code: 'policy_approval_required',
      policyIds: `${one.id},${two.id}`,
      requiredApprovals: 2,
    });
    expect(evaluatePolicies([one, two], ctx({ approvals: 1 }))).toMatchObject({
      code: 'policy_approvals_pending',
      message: expect.stringContaining('1 of 2 approvals'),
    });
    expect(evaluatePolicies([one, two], ctx({ approvals: 2 }))).toEqual({ outcome: 'allow' });
    expect(evaluatePolicies([one, two], ctx({ amount: 10n ** 17n }))).toEqual({ outcome: 'allow' });
  });

  it('never hides a denial behind an approval request (order)', () => {
    const approval = policy('approval_above', { threshold: '1' });
    const deny = policy('deny_destinations', { addresses: ['0xaaaa000000000000000000000000000000000001'] });
    expect(evaluatePolicies([approval, deny], ctx({ approvals: 5 }))).toMatchObject({ code: 'policy_denied', policyIds: String(deny.id) });
  });

  it('refuses a malformed policy amount rather than guessing', () => {
    expect(() => evaluatePolicies([policy('max_per_transaction', { max: 1.5 })], ctx())).toThrow(/base-unit integer strings/);
  });
});
