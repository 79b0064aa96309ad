import { totpContext } from '../../members/signIn/credentials';
import { walletSecretContext } from '../../wallets/wallets';
import { webhookContext } from '../../webhooks/secrets/webhookSecrets';

/** Every column walletd seals under the master key, and the context each envelope is bound to. */
export interface SealedColumn {
  table: string;
  /** The row's key, an integer, also the envelope's context id. */
  id: string;
  column: string;
  context: (id: number) => string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'wallets', id: 'id', column: 'secret_envelope', context: walletSecretContext },
  { table: 'webhooks', id: 'id', column: 'secret_envelope', context: webhookContext },
  { table: 'member_credentials', id: 'member_id', column: 'totp_envelope', context: totpContext },
];
