import { WalletdApiError } from './apiError';

type Result = { data?: unknown; error?: unknown; response: Response };
type DataOf<R extends Result> = [Exclude<R['data'], undefined>] extends [never] ? undefined : Exclude<R['data'], undefined>;

/**
 * The data of an openapi-fetch call, or its error thrown as a WalletdApiError:
 * `const wallet = await ok(walletd.POST('/wallets', { body }))`.
 */
export async function ok<R extends Result>(call: Promise<R>): Promise<DataOf<R>> {
  const { data, error, response } = await call;
  if (!response.ok) throw WalletdApiError.from(error, response);
  return data as DataOf<R>;
}
