import { BaseError } from '@walletd/plugin-kit';
import { bitcoin, ecc } from './libs';
import type { UtxoNetwork } from './networks';

/**
 * The output script of a bech32 (v0) or bech32m (v1) address, or null when `text` is not bech32
 * at all (a base58 address then). What a chain cannot spend is refused with the reason, because
 * money sent there is lost or anyone's:
 * - a network without segwit (Dogecoin): a `doge1q…` string has a valid checksum, but the chain
 *   has no witness outputs to pay;
 * - witness v2–v16: no consensus rule guards them yet, so anyone can spend such an output until a
 *   soft fork defines them (bitcoinjs builds the script and only warns);
 * - v1 (taproot, BIP-341) whose program is not an x-only public key: no key can ever sign for it.
 * Built here rather than with bitcoinjs' `payments.p2tr`, which needs a process-wide ECC library
 * registered first (without one every taproot address was refused).
 */
export function witnessScript(net: UtxoNetwork, text: string): Uint8Array | null {
  let decoded: ReturnType<typeof bitcoin.address.fromBech32>;
  try {
    decoded = bitcoin.address.fromBech32(text);
  } catch {
    return null;
  }
  const refuse = (why: string) => new BaseError('invalid_address', `"${text}" is not a valid ${net.chain} ${net.network} address: ${why}`);
  if (!net.segwit) throw refuse(`${net.chain} has no segwit outputs; give a base58 address`);
  if (decoded.prefix !== net.params.bech32) throw refuse(`its prefix is ${decoded.prefix}, not ${net.params.bech32}`);
  const { version, data } = decoded;
  const script = (opcode: number) => Uint8Array.from([opcode, data.length, ...data]);
  if (version === 0 && (data.length === 20 || data.length === 32)) return script(0x00);
  if (version === 1 && data.length === 32) {
    if (!ecc.isXOnlyPoint(data)) throw refuse('its taproot program is not a public key (no key could ever spend it)');
    return script(0x51);
  }
  if (version >= 2) throw refuse(`witness version ${version} is not defined yet: anyone could spend such an output`);
  throw refuse(`a witness v${version} program of ${data.length} bytes is not a standard output`);
}
