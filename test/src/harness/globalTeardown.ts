import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__WALLETD_PG__?.stop({ force: true });
  const dir = process.env.WALLETD_TEST_PG_DATA;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
