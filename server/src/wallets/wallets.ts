import {
  BaseError,
  PLAN_LIMITS,
  generateWalletMnemonic,
  openWalletSecret,
  planAllowsNetwork,
  sealTo,
  type Db,
  type MasterKey,
  type WalletSecret,
  type Plan,
  type PluginRegistry,
  type PreparedStatement,
  runPrepared,
} from '@walletd/core';
import type { WalletRow } from '../http/scope';
import { chainNotSupported } from './chainNotServed';
import { addressRow } from './addressRow';
import { audit } from '../company/audit';

export interface WalletView {
  id: number;
  name: string;
  chain: string;
  network: string;
  createdAt: string;
  updatedAt: string;
}

export const toWalletView = (r: WalletRow): WalletView => ({
  id: r.id,
  name: r.name,
  chain: r.chain,
  network: r.network,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** Binds a wallet's secret envelope to its id: a ciphertext moved to another row will not open. */
export const walletSecretContext = (walletId: number) => `wallet:${walletId}`;

/**
 * Opens a wallet's secret envelope for one plugin call (derive or sign) and zeroes the mnemonic
 * and every copy handed to the plugin when the call ends, however it ends.
 */
export async function withWalletSecret<T>(
  masterKey: MasterKey,
  walletId: number,
  envelope: unknown,
  use: (secret: WalletSecret) => T | Promise<T>,
): Promise<T> {
  const mnemonic = masterKey.open(envelope as never, walletSecretContext(walletId));
  const secret = openWalletSecret(mnemonic);
  try {
    return await use(secret);
  } finally {
    secret.dispose();
    mnemonic.fill(0);
  }
}

export interface CreateWalletInput {
  companyId: number;
  name: string;
  chain: string;
  network: string;
}

/**
 * On account-tag chains (XRP) the wallet's one account is derived here, while the new secret is in
 * hand, so generating its tagged deposit addresses later never opens the secret.
 */
export async function createWallet(db: Db, masterKey: MasterKey, input: CreateWalletInput, plugins: PluginRegistry): Promise<WalletView> {
  // The chains and networks are the ones the loaded plugins declare (no list in core).
  const table = plugins.chainTable();
  const networks = table.networks.get(input.chain);
  if (!networks) throw chainNotSupported(input.chain, table.chains());
  const info = table.network(input.chain, input.network);
  if (!info) {
    const known = networks.map((n) => n.name).join(', ');
    throw new BaseError('validation_failed', `unknown network "${input.network}" for ${input.chain}; known: ${known}`);
  }
  return db.transaction(async (trx) => {
    // Lock the company row: plan checks and the wallet count are consistent under concurrency.
    const company = (await trx('companies').where({ id: input.companyId }).forUpdate().first('plan')) as { plan: Plan } | undefined;
    if (!company) throw new BaseError('not_found', 'company not found');
    if (!planAllowsNetwork(company.plan, info)) {
      throw new BaseError('plan_forbidden', `${input.chain}/${input.network} is not included in the ${company.plan} plan`);
    }
    if (company.plan !== 'none') {
      const cap = PLAN_LIMITS[company.plan].maxWallets;
      if (cap !== null) {
        const [{ count }] = (await trx('wallets').where({ company_id: input.companyId }).whereNull('deleted_at').count('* as count')) as [
          { count: string },
        ];
        if (Number(count) >= cap) throw new BaseError('plan_cap_reached', `the ${company.plan} plan allows at most ${cap} wallets`);
      }
    }
    const { rows } = await trx.raw(`select nextval(pg_get_serial_sequence('wallets', 'id'))::int as id`);
    const id = rows[0].id as number;
    const mnemonic = Buffer.from(generateWalletMnemonic());
    try {
      const envelope = masterKey.seal(mnemonic, walletSecretContext(id));
      const [row] = await trx('wallets')
        .insert({
          id,
          company_id: input.companyId,
          name: input.name,
          chain: input.chain,
          network: input.network,
          secret_envelope: envelope,
        })
        .returning('*');
      const plugin = plugins.forChain(input.chain);
      if (plugin?.chains.find((c) => c.chain === input.chain)?.addressing === 'account-tag') {
        const secret = openWalletSecret(mnemonic);
        try {
          const account = plugin.deriveAddress(input.chain, input.network, secret, 0);
          await trx('addresses').insert(addressRow(row as WalletRow, account, 0, 'account', null));
        } finally {
          secret.dispose();
        }
      }
      return toWalletView(row as WalletRow);
    } finally {
      mnemonic.fill(0);
    }
  });
}

/**
 * The list reads the view's columns only (never the sealed secret), as one statement prepared per
 * connection: it runs on every `GET /v1/wallets` (bench/README.md, `api`). `$2` null = every wallet.
 */
const LIST_WALLETS: PreparedStatement = {
  name: 'walletd_list_wallets',
  text: `select id, name, chain, network, created_at, updated_at from wallets
    where company_id = $1 and deleted_at is null and ($2::bigint[] is null or id = any($2::bigint[]))
    order by id`,
};

export async function listWallets(db: Db, companyId: number, walletIds: ReadonlySet<number> | null): Promise<WalletView[]> {
  const rows = await runPrepared<WalletRow>(db, LIST_WALLETS, [companyId, walletIds === null ? null : [...walletIds]]);
  return rows.map(toWalletView);
}

export async function renameWallet(db: Db, wallet: WalletRow, name: string): Promise<WalletView> {
  const [row] = await db('wallets').where({ id: wallet.id }).update({ name, updated_at: db.fn.now() }).returning('*');
  return toWalletView(row as WalletRow);
}

/**
 * Deleting archives: the wallet disappears from the API but its secret and history stay, because
 * funds may still arrive at its addresses and a custody record is never destroyed by an API call.
 */
export async function deleteWallet(db: Db, wallet: WalletRow): Promise<void> {
  await db('wallets').where({ id: wallet.id }).update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
}

export interface SecretReadContext {
  companyId: number;
  keyId: number;
  ip: string | null;
}

/** Opens the at-rest envelope and re-seals the secret to the company's public key; audited. */
export async function readSealedSecret(db: Db, masterKey: MasterKey, wallet: WalletRow, who: SecretReadContext): Promise<string> {
  const company = (await db('companies').where({ id: who.companyId }).first('encryption_public_key')) as {
    encryption_public_key: string | null;
  };
  if (!company.encryption_public_key) {
    await audit(db, {
      companyId: who.companyId,
      actorType: 'api_key',
      actorId: who.keyId,
      action: 'wallet.secret.refused',
      targetType: 'wallet',
      targetId: wallet.id,
      ip: who.ip,
      details: { reason: 'no_encryption_key' },
    });
    throw new BaseError('conflict', "The company has no encryption key registered; an owner sets one in the console's Encryption key page");
  }
  const secret = masterKey.open(wallet.secret_envelope as never, walletSecretContext(wallet.id));
  try {
    const sealed = sealTo(company.encryption_public_key, secret, walletSecretContext(wallet.id));
    await audit(db, {
      companyId: who.companyId,
      actorType: 'api_key',
      actorId: who.keyId,
      action: 'wallet.secret.read',
      targetType: 'wallet',
      targetId: wallet.id,
      ip: who.ip,
    });
    return sealed;
  } finally {
    secret.fill(0);
  }
}
