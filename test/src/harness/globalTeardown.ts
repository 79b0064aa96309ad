export default async function globalTeardown(): Promise<void> {
  await globalThis.__WALLETD_PG__?.stop({ force: true });
}
