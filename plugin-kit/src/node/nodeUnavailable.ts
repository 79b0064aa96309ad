import { BaseError } from '../errors';

/**
 * The API's 502 for a chain's node that failed a call (no answer, a timeout, an answer about
 * itself): names the chain and network, never the node. A transport failure's own text carries
 * the node's host and port (`connect ECONNREFUSED 10.0.0.5:8545`), which is the operator's to see,
 * not an API caller's: it stays in `cause`, which the server logs and never renders.
 */
export class NodeUnavailableError extends BaseError {
  constructor(chain: string, network: string, cause?: unknown) {
    super('node_error', `The ${chain}/${network} node did not answer; try again later`, { cause });
    this.name = 'NodeUnavailableError';
  }
}

/**
 * What the API renders for any other `node_error` that reaches it: a plugin's wording may quote
 * the node's or the transport's text, so it is not shown; the log has it.
 */
export const NODE_UNAVAILABLE_MESSAGE = 'The chain node did not answer; try again later';
