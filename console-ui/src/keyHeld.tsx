/** What the mark means, in the tooltip and the legend under a list that shows it. */
export const TOKEN_KEY_TEXT =
  'The key was generated inside the PKCS#11 token (the HSM) and never leaves it: walletd asks the token for each signature. It is not derived from the wallet’s mnemonic, so the wallet’s secret export does not contain it.';

/** The mark of an address whose key is held in the token (issue 45 §3): the same everywhere an address is shown. */
export function TokenKeyMark() {
  return (
    <span class="key-mark" title={TOKEN_KEY_TEXT} data-testid="token-key">
      key in the token
    </span>
  );
}

/** What the KMS mark means (issue 45 §4), in its tooltip and the legend. */
export const KMS_KEY_TEXT =
  'The key is an AWS KMS key and never leaves KMS: walletd asks KMS for each signature (kms:Sign). It is not derived from the wallet’s mnemonic, so the wallet’s secret export does not contain it.';

/** The mark of an address whose key is held in AWS KMS: the same everywhere an address is shown. */
export function KmsKeyMark() {
  return (
    <span class="key-mark" title={KMS_KEY_TEXT} data-testid="kms-key">
      key in AWS KMS
    </span>
  );
}

/** The mark for where a source's key is held, or nothing for a key derived from the wallet's mnemonic. */
export function KeyHeldMark({ held }: { held: 'token' | 'kms' | undefined }) {
  if (held === 'token') return <TokenKeyMark />;
  if (held === 'kms') return <KmsKeyMark />;
  return null;
}
