import { BaseError } from '@walletd/plugin-kit';
import { networkOf } from '../networks';
import { decodeSegwitV0, encodeSegwitV0 } from './bech32';

const SCRIPT_HEX = /^00(14[0-9a-f]{40}|20[0-9a-f]{64})$/;

/** The output script of a version-0 witness program: OP_0 <20 or 32 bytes>. */
export const scriptOfProgram = (program: Uint8Array): Buffer => Buffer.concat([Buffer.from([0, program.length]), program]);

/** The address's output script, hex; null when it is not a native segwit address of the network. */
export function scriptHexOf(chain: string, network: string, address: string): string | null {
  const program = decodeSegwitV0(networkOf(chain, network).hrp, address);
  return program ? scriptOfProgram(program).toString('hex') : null;
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
  return encodeSegwitV0(networkOf(chain, network).hrp, script.subarray(2));
}

export function formatAddressOf(chain: string, network: string, address: string): string {
  const key = matchKeyOf(chain, network, address);
  return addressOfScript(chain, network, Buffer.from(key, 'hex')) as string;
}
