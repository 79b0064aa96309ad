import { randomUUID } from 'node:crypto';
import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENT_OPERATIONS } from './api.generated';

const OPERATIONS = new Set(IDEMPOTENT_OPERATIONS);

/**
 * Fills `idempotencyKey` in the body of every value-moving call that takes one (walletd reads it
 * from the body, not from a header) unless the caller gave one, so a retry of that call cannot move
 * money twice. A caller who retries across restarts of its own process passes its own key.
 */
export function idempotencyKeys(newKey: () => string = randomUUID): Middleware {
  return {
    async onRequest({ request, schemaPath }) {
      if (!OPERATIONS.has(`${request.method} ${schemaPath}`)) return undefined;
      const body = JSON.parse(await request.clone().text()) as Record<string, unknown>;
      if (typeof body.idempotencyKey === 'string' && body.idempotencyKey !== '') return undefined;
      return new Request(request, { body: JSON.stringify({ ...body, idempotencyKey: newKey() }) });
    },
  };
}
