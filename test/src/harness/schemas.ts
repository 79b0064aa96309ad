import { validator } from '@walletd/schemas';

/** Fails with Ajv's errors and the body when `body` does not match the schema `id`. */
export function expectSchema(id: Parameters<typeof validator>[0], body: unknown): void {
  const v = validator(id);
  if (!v(body)) throw new Error(`${id}: ${JSON.stringify(v.errors)} in ${JSON.stringify(body)}`);
}
