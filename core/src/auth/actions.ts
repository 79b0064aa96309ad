import { BaseError } from '@walletd/plugin-kit';
/**
 * Permission actions an API key can be granted. Wallet actions apply to the wallets in the key's
 * scope; global actions apply to the company. This list is the public contract (docs/guide/api.md#actions).
 */
export const WALLET_ACTIONS = [
  'wallets:read',
  'wallets:update',
  'wallets:delete',
  'wallets:generate_address',
  'transactions:read',
  'withdrawals:read',
  'withdrawals:create',
  'withdrawal_requests:create',
  'events:read',
] as const;

export const GLOBAL_ACTIONS = ['wallets:create', 'webhooks:manage'] as const;

export const ALL_ACTIONS = [...WALLET_ACTIONS, ...GLOBAL_ACTIONS] as const;

export type WalletAction = (typeof WALLET_ACTIONS)[number];
export type GlobalAction = (typeof GLOBAL_ACTIONS)[number];
export type Action = WalletAction | GlobalAction;

export const ACTION_DESCRIPTIONS: Record<Action, string> = {
  'wallets:read': 'list and read wallets, their addresses and balances',
  'wallets:update': 'rename a wallet',
  'wallets:delete': 'delete (archive) a wallet',
  'wallets:generate_address': 'generate deposit addresses; also read the sealed wallet secret',
  'transactions:read': 'list and search deposits and withdrawals on-chain',
  'withdrawals:read': 'read withdrawals and withdrawal requests',
  'withdrawals:create': 'prepare, sign and broadcast withdrawals; also read the sealed wallet secret',
  'withdrawal_requests:create': 'propose a withdrawal for a person to approve',
  'events:read': 'read the event feed (GET /v1/events)',
  'wallets:create': 'create wallets (global)',
  'webhooks:manage': 'create, list, change and delete webhooks and read their deliveries (global)',
};

export const isAction = (s: string): s is Action => (ALL_ACTIONS as readonly string[]).includes(s);
export const isGlobalAction = (s: string): s is GlobalAction => (GLOBAL_ACTIONS as readonly string[]).includes(s);

export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (s: string): s is Role => (ROLES as readonly string[]).includes(s);

const READ_ACTIONS: Action[] = ['wallets:read', 'transactions:read', 'withdrawals:read', 'events:read'];

/**
 * A key can never do more than the member who created it may do today: the key's actions are
 * capped by its creator's current role. Demoting or removing the creator disables what the role
 * no longer allows (403), without rotating the key.
 */
export const ROLE_ACTIONS: Record<Role, ReadonlySet<Action>> = {
  owner: new Set(ALL_ACTIONS),
  admin: new Set(ALL_ACTIONS),
  developer: new Set<Action>([
    ...READ_ACTIONS,
    'wallets:create',
    'wallets:update',
    'wallets:generate_address',
    'withdrawal_requests:create',
    'webhooks:manage',
  ]),
  viewer: new Set<Action>(READ_ACTIONS),
};

/** Parses `--actions` / config lists: "*" or comma-separated names; throws naming the unknown one. */
export function parseActionList(text: string): Action[] {
  if (text.trim() === '*') return [...ALL_ACTIONS];
  const out: Action[] = [];
  for (const raw of text.split(',')) {
    const a = raw.trim();
    if (!a) continue;
    if (!isAction(a)) throw new BaseError('input_invalid', `unknown action "${a}"; known actions: ${ALL_ACTIONS.join(', ')}`);
    if (!out.includes(a)) out.push(a);
  }
  if (out.length === 0) throw new BaseError('input_invalid', 'at least one action is required');
  return out;
}
