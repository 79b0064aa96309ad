import { BaseError } from '@walletd/plugin-kit';
import { bitcoin } from './libs';
import { networkOf } from './networks';

const SCRIPT_HEX = /^00(14[0-9a-f]{40}|20[0-9a-f]{64})$/;

/**
 * The address's output script, hex; null when it is not a native segwit (version 0, bech32)
 * address of the network. bitcoinjs-lib decodes it (checksum, case, padding, bech32 against
 * bech32m); legacy `L…`/`M…` and taproot forms are refused here rather than half supported.
 */
export function scriptHexOf(chain: string, network: string, address: string): string | null {
  const { hrp } = networkOf(chain, network);
  let decoded: { version: number; prefix: string; data: Uint8Array };
  try {
    decoded = bitcoin.address.fromBech32(address);
  } catch {
    return null;
  }
  if (decoded.prefix !== hrp || decoded.version !== 0) return null;
  const { data: hash } = decoded;
  const pay = hash.length === 20 ? bitcoin.payments.p2wpkh({ hash }) : hash.length === 32 ? bitcoin.payments.p2wsh({ hash }) : undefined;
  return pay?.output ? Buffer.from(pay.output).toString('hex') : null;
}

/**
 * The match form is the output script in hex: what `detect` reads in a block, so matching needs
 * no address encoding on the hot path. Accepts an address or a match form.
 */
export function matchKeyOf(chain: string, network: string, address: string): string {
  if (SCRIPT_HEX.test(address)) return address;
  const script = scriptHexOf(chain, network, address);
  if (!script)
    throw new BaseError(
      'invalid_address',
      `${address} is not a native segwit (${networkOf(chain, network).hrp}1…) litecoin ${network} address`,
    );
  return script;
}

/** The address of a version-0 witness output script (a match form), or undefined for another script. */
export function addressOfScript(chain: string, network: string, script: Uint8Array): string | undefined {
  if (script.length !== 22 && script.length !== 34) return undefined;
  if (script[0] !== 0 || script[1] !== script.length - 2) return undefined;
  return bitcoin.address.toBech32(script.subarray(2), 0, networkOf(chain, network).hrp);
}

export function formatAddressOf(chain: string, network: string, address: string): string {
  const key = matchKeyOf(chain, network, address);
  return addressOfScript(chain, network, Buffer.from(key, 'hex')) as string;
}
