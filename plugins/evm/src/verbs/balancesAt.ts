import { NodeCallError } from '@walletd/plugin-kit';
import type { EvmReader } from '../reader';

/**
 * One `eth_call` reading many `balanceOf`s in one past state: the creation code of
 * contracts/BalancesAt.sol (solc 0.8.37, optimizer 200 runs, no metadata; balancesAt.test.ts
 * compiles the source again and compares) with its arguments appended, sent without `to`. Nothing
 * is deployed: the node runs the constructor in that state and answers with what it returns.
 * Each `eth_call` on a past state costs the node the state's setup (anvil: 0.13 ms for one
 * balanceOf, 0.17 ms for four through this contract, 0.23 ms for four plain calls in a batch;
 * bench/README.md, follower); one per block side instead of one per (token, address).
 */
export const BALANCES_AT_CODE =
  '0x608060405234801561000f575f5ffd5b5060405161045738038061045783398101604081905261002e9161033c565b81515f816001600160401b038111156100495761004961026a565b604051908082528060200260200182016040528015610072578160200160208202803683370190505b5090505f826001600160401b0381111561008e5761008e61026a565b6040519080825280601f01601f1916602001820160405280156100b8576020820181803683370190505b5090505f5b8381101561023c575f5f8783815181106100d9576100d96103a1565b60200260200101516001600160a01b0316620f42406370a08231898681518110610105576101056103a1565b602002602001015160405160240161012c91906001600160a01b0391909116815260200190565b6040516020818303038152906040529060e01b6020820180516001600160e01b03838183161783525050505060405161016591906103b5565b5f604051808303818686fa925050503d805f811461019e576040519150601f19603f3d011682016040523d82523d5f602084013e6101a3565b606091505b50915091508180156101b6575080516020145b156101f257808060200190518101906101cf91906103cb565b8584815181106101e1576101e16103a1565b602002602001018181525050610232565b8115806101ff5750805115155b1561023257600160f81b84848151811061021b5761021b6103a1565b60200101906001600160f81b03191690815f1a9053505b50506001016100bd565b505f82826040516020016102519291906103e2565b6040516020818303038152906040529050805160208201f35b634e487b7160e01b5f52604160045260245ffd5b80516001600160a01b0381168114610294575f5ffd5b919050565b5f82601f8301126102a8575f5ffd5b81516001600160401b038111156102c1576102c161026a565b604051600582901b90603f8201601f191681016001600160401b03811182821017156102ef576102ef61026a565b60405291825260208185018101929081018684111561030c575f5ffd5b6020860192505b83831015610332576103248361027e565b815260209283019201610313565b5095945050505050565b5f5f6040838503121561034d575f5ffd5b82516001600160401b03811115610362575f5ffd5b61036e85828601610299565b602085015190935090506001600160401b0381111561038b575f5ffd5b61039785828601610299565b9150509250929050565b634e487b7160e01b5f52603260045260245ffd5b5f82518060208501845e5f920191825250919050565b5f602082840312156103db575f5ffd5b5051919050565b604080825283519082018190525f9060208501906060840190835b8181101561041b5783518352602093840193909201916001016103fd565b50508381036020850152845191508181528160208601602083015e5f602083830101526020601f19601f84011682010192505050939250505056fe';

/** The most pairs one call asks: the answer (64 bytes a pair) is returned as code, under EIP-170's 24,576 bytes. */
export const BALANCES_AT_MAX = 256;

const word = (hex: string) => hex.padStart(64, '0');

/** The call reading `balanceOf(holder)` of each pair's token in the state after the block of `blockHash`. */
function balancesAtCall(pairs: readonly { token: string; address: string }[], blockHash: string) {
  const n = pairs.length;
  // abi.encode(address[] tokens, address[] holders): two offsets, then each array's length and words.
  const parts = [word('40'), word((0x60 + 32 * n).toString(16)), word(n.toString(16))];
  for (const p of pairs) parts.push(word(p.token.slice(2).toLowerCase()));
  parts.push(word(n.toString(16)));
  for (const p of pairs) parts.push(word(p.address.slice(2).toLowerCase()));
  return { method: 'eth_call', params: [{ data: BALANCES_AT_CODE + parts.join('') }, { blockHash }] };
}

/**
 * The answer as one balance per pair asked, `null` where the token's answer was not a plain balance
 * (the call failed, or returned neither 0 nor 32 bytes: read alone, as a plain `eth_call`), or
 * `null` for the whole answer when it is not the shape BalancesAt returns for `n` pairs.
 */
function balancesOfAnswer(answer: unknown, n: number): (bigint | null)[] | null {
  // abi.encode(uint256[] values, bytes irregular): 0x40, 0x60 + 32n, n, n words, n, n bytes padded.
  const bytes = 32 * (4 + n + Math.ceil(n / 32));
  if (typeof answer !== 'string' || answer.length !== 2 + 2 * bytes) return null;
  const at = (i: number) => BigInt(`0x${answer.slice(2 + 64 * i, 66 + 64 * i)}`);
  if (at(0) !== 0x40n || at(1) !== BigInt(0x60 + 32 * n) || at(2) !== BigInt(n) || at(3 + n) !== BigInt(n)) return null;
  const flags = answer.slice(2 + 64 * (4 + n));
  const out: (bigint | null)[] = [];
  for (let i = 0; i < n; i++) out.push(flags.slice(2 * i, 2 * i + 2) === '00' ? at(3 + i) : null);
  return out;
}

export interface Wanted {
  token: string;
  address: string;
  blockHash: string;
}

/**
 * `balanceOf(address)` of the token in the state after the block of that hash, as a call of its
 * own (selector 0x70a08231 + the address as a word; the block named by hash, EIP-1898, so it is the
 * block detect read): what BalancesAt's answer is checked against, and the read where it cannot serve.
 */
const balanceCall = (w: Wanted) => ({
  method: 'eth_call',
  params: [{ to: w.token, data: `0x70a08231${w.address.slice(2).toLowerCase().padStart(64, '0')}` }, { blockHash: w.blockHash }],
});
const amountOf = (word: string) => (word === '0x' ? 0n : BigInt(word));

/** The pairs read one `eth_call` each, in one batch. */
async function readAlone(reader: EvmReader, wanted: readonly Wanted[]): Promise<bigint[]> {
  return (await reader.batch<string>(wanted.map(balanceCall))).map(amountOf);
}

/**
 * The balances of `wanted`: one BalancesAt `eth_call` per block hash (and per BALANCES_AT_MAX
 * pairs), all in one batch. A pair whose token did not answer a plain balance, or every pair when
 * the node refuses the call or answers it in another shape, is read alone, as before BalancesAt:
 * the same value a plain `eth_call` reads, never a guess. A node that does not answer throws.
 */
export async function readBalances(reader: EvmReader, wanted: readonly Wanted[]): Promise<bigint[]> {
  const groups = new Map<string, number[]>();
  wanted.forEach((w, i) => {
    const group = groups.get(w.blockHash) ?? [];
    if (group.length === 0) groups.set(w.blockHash, group);
    group.push(i);
  });
  const chunks: number[][] = [];
  for (const group of groups.values())
    for (let i = 0; i < group.length; i += BALANCES_AT_MAX) chunks.push(group.slice(i, i + BALANCES_AT_MAX));
  let answers: unknown[];
  try {
    answers = await reader.batch(
      chunks.map((c) =>
        balancesAtCall(
          c.map((i) => wanted[i] as Wanted),
          (wanted[c[0] as number] as Wanted).blockHash,
        ),
      ),
    );
  } catch (err) {
    // The node answered no (a node or provider that refuses calls without `to`): plain reads.
    if (err instanceof NodeCallError && err.node.kind === 'rpc') return readAlone(reader, wanted);
    throw err;
  }
  const out: (bigint | null)[] = new Array(wanted.length).fill(null);
  chunks.forEach((c, k) => {
    const values = balancesOfAnswer(answers[k], c.length);
    if (values)
      c.forEach((i, j) => {
        out[i] = values[j] ?? null;
      });
  });
  const alone = out.flatMap((v, i) => (v === null ? [i] : []));
  if (alone.length > 0) {
    const read = await readAlone(
      reader,
      alone.map((i) => wanted[i] as Wanted),
    );
    alone.forEach((i, j) => {
      out[i] = read[j] as bigint;
    });
  }
  return out as bigint[];
}
