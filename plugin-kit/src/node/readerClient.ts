import type { ReaderOptions } from '../contract/reader';
import { type JsonRpcClient, type JsonRpcClientOptions, createJsonRpcClient } from './jsonRpcClient';

/**
 * The node options a reader receives (`createReader(chain, network, options)`), passed on to a
 * transport: only those the operator set, so each transport keeps its own defaults. Every plugin
 * spelled these four spreads out once per reader before they lived here.
 */
export function nodeOptionsOf(options: ReaderOptions): {
  url: string;
  timeoutMs?: number;
  retries?: number;
  maxResponseBytes?: number;
  name?: string;
} {
  return {
    url: options.rpcUrl,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retries !== undefined ? { retries: options.retries } : {}),
    ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
    ...(options.name !== undefined ? { name: options.name } : {}),
  };
}

/** The kit's JSON-RPC client for a reader's node: `createJsonRpcClient` under the reader's options. */
export function readerJsonRpcClient(options: ReaderOptions, dialect: JsonRpcClientOptions['dialect']): JsonRpcClient {
  const { url, ...rest } = nodeOptionsOf(options);
  return createJsonRpcClient({ url, dialect, ...rest });
}
