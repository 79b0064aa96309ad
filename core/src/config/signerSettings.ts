/**
 * Signers outside walletd's process for keys that are not the master key (issue 45 §4): a cloud
 * KMS holding a treasury address's key (docs/operate/keys-and-hsms.md). The config names where the
 * service is, never a credential: those come from the SDK's default chain (an instance or task
 * role, the `AWS_*` environment variables, a profile).
 */
export interface AwsKmsSettings {
  /** The region of the keys, e.g. `eu-west-1`. */
  region: string;
  /** Another endpoint than the region's: a VPC endpoint (or, in tests, an emulator of the wire protocol). */
  endpoint?: string;
}

export interface SignerSettings {
  /** null: no address or gas station can be held in AWS KMS (`keyHeldIn: "kms"` is a 422). */
  awsKms: AwsKmsSettings | null;
}

export const signersSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    awsKms: {
      description:
        'AWS KMS for addresses made with keyHeldIn "kms": { region, endpoint? }; credentials from the SDK default chain (a role, AWS_* variables), never here',
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['region'],
          properties: {
            region: { type: 'string', pattern: '^[a-z]{2}(-[a-z]+)+-[0-9]+$' },
            endpoint: { type: 'string', pattern: '^https?://' },
          },
        },
      ],
    },
  },
} as const;

export const DEFAULT_SIGNERS: SignerSettings = { awsKms: null };
