import { NodeCallError } from './nodeCallError';

/**
 * A node that answered a block (or ledger) of another height than the one asked. Every hash it
 * gives is then compared at the wrong height and differs, which reads as a reorg of any depth:
 * said as what it is, so the operator fixes the node rather than the reorg window.
 */
export function wrongHeightError(name: string | undefined, method: string, asked: bigint, got: bigint): NodeCallError {
  const who = name ? `${name}: ` : '';
  return new NodeCallError(
    `${who}the node answers the wrong heights: asked ${method} for block ${asked}, it answered block ${got}; fix the node (or the proxy or load balancer in front of it): this is not a reorg, no reorgWindow or rescan helps`,
    { method, kind: 'wrong_height' },
  );
}
