import { BaseError, isAction, parseCidr, type Action } from '@walletd/core';
import { parseDuration } from './apiKeys';

/** A key as the console's create form sends it, checked field by field. */
export interface KeyInput {
  name: string | null;
  actions: Action[];
  /** null: every wallet, including later ones. */
  walletIds: number[] | null;
  allowIps: string[] | null;
  expiresInMs: number | null;
}

/** Beyond this a date is no expiry at all (and far enough out, not a date PostgreSQL stores). */
const MAX_LIFETIME_MS = 3650 * 86_400_000;

const bad = (message: string) => new BaseError('validation_failed', message);

/**
 * The body of `POST /console/api/keys`: `actions` (at least one known action), `walletIds` ("*" or
 * ids), optional `name`, `allowIps` (IPs or CIDR ranges) and `expiresIn` (30m, 12h, 90d, 2w).
 * Every refusal names the field, as the API's validation errors do.
 */
export function parseKeyInput(body: unknown): KeyInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('The body must be a JSON object');
  const b = body as Record<string, unknown>;
  const known = new Set(['name', 'actions', 'walletIds', 'allowIps', 'expiresIn']);
  for (const k of Object.keys(b)) if (!known.has(k)) throw bad(`"${k}" is not a field of an API key`);

  let name: string | null = null;
  if (b.name !== undefined && b.name !== null && b.name !== '') {
    if (typeof b.name !== 'string' || b.name.length > 100) throw bad('"name" must be a string of at most 100 characters');
    name = b.name.trim() || null;
  }

  if (!Array.isArray(b.actions) || b.actions.length === 0) throw bad('"actions" must be a non-empty array of actions');
  const actions: Action[] = [];
  for (const a of b.actions) {
    if (typeof a !== 'string' || !isAction(a)) throw bad(`"actions" has an unknown action ${JSON.stringify(a)}`);
    if (!actions.includes(a)) actions.push(a);
  }

  let walletIds: number[] | null;
  if (b.walletIds === '*') walletIds = null;
  else if (Array.isArray(b.walletIds) && b.walletIds.length > 0) {
    walletIds = [];
    for (const id of b.walletIds) {
      if (!Number.isSafeInteger(id) || (id as number) <= 0) throw bad(`"walletIds" must be "*" or wallet ids, not ${JSON.stringify(id)}`);
      if (!walletIds.includes(id as number)) walletIds.push(id as number);
    }
  } else throw bad('"walletIds" must be "*" (every wallet, including later ones) or a non-empty array of wallet ids');

  let allowIps: string[] | null = null;
  if (b.allowIps !== undefined && b.allowIps !== null) {
    if (!Array.isArray(b.allowIps) || b.allowIps.length > 100) throw bad('"allowIps" must be an array of IP addresses or CIDR ranges');
    for (const ip of b.allowIps) {
      if (typeof ip !== 'string') throw bad('"allowIps" must be an array of IP addresses or CIDR ranges');
      try {
        parseCidr(ip);
      } catch {
        throw bad(`"allowIps" has ${JSON.stringify(ip)}, which is not an IP address or CIDR range`);
      }
    }
    allowIps = b.allowIps.length ? (b.allowIps as string[]) : null;
  }

  let expiresInMs: number | null = null;
  if (b.expiresIn !== undefined && b.expiresIn !== null && b.expiresIn !== '') {
    if (typeof b.expiresIn !== 'string') throw bad('"expiresIn" must be a duration like 30m, 12h, 90d or 2w');
    try {
      expiresInMs = parseDuration(b.expiresIn);
    } catch {
      throw bad(`"expiresIn" must be a duration like 30m, 12h, 90d or 2w, not ${JSON.stringify(b.expiresIn)}`);
    }
    if (expiresInMs > MAX_LIFETIME_MS) throw bad('"expiresIn" must be at most 10 years (leave it out for a key that does not expire)');
  }
  return { name, actions, walletIds, allowIps, expiresInMs };
}
