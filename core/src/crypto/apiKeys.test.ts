import { API_KEY_PREFIX, digestsEqual, generateApiKey, hashApiKey, isWellFormedApiKey } from './apiKeys';

describe('API keys', () => {
  it('generates well-formed, distinct keys with the live prefix', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) {
      expect(k.startsWith(API_KEY_PREFIX)).toBe(true);
      expect(k).toHaveLength(API_KEY_PREFIX.length + 36);
      expect(isWellFormedApiKey(k)).toBe(true);
    }
  });

  it('rejects a mistyped key by its checksum, before any lookup', () => {
    const k = generateApiKey();
    const i = API_KEY_PREFIX.length + 5;
    const typo = k.slice(0, i) + (k[i] === 'a' ? 'b' : 'a') + k.slice(i + 1);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(k.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`svc_test_${k.slice(API_KEY_PREFIX.length)}`)).toBe(false);
  });

  it('hashes deterministically and compares digests', () => {
    const k = generateApiKey();
    expect(hashApiKey(k)).toBe(hashApiKey(k));
    expect(digestsEqual(hashApiKey(k), hashApiKey(k))).toBe(true);
    expect(digestsEqual(hashApiKey(k), hashApiKey(generateApiKey()))).toBe(false);
  });
});
