import { validateSolanaAddress } from './addresses';
import { solanaBurnAddresses, solanaBurnReason } from './burnAddress';

describe('Solana accounts no payment may go to', () => {
  it('names only real 32-byte account addresses (a typo would refuse nothing)', () => {
    const all = solanaBurnAddresses();
    expect(all.length).toBeGreaterThan(20);
    for (const a of all) expect([a, validateSolanaAddress(a)]).toEqual([a, true]);
    expect(solanaBurnReason('1nc1nerator11111111111111111111111111111111')).toBe('the incinerator');
    expect(solanaBurnReason('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM')).toBeNull();
  });
});
