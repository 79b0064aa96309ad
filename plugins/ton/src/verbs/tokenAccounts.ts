import { Address } from '@ton/core';
import type { DerivedAddress, TokenAccount, TokenDefinition } from '@walletd/plugin-kit';
import type { TonReader } from '../reader';

/**
 * The jetton wallet each allow-listed master names for a deposit address (`get_wallet_address`,
 * asked of the master itself: never computed from a code hash a master could change). Its key is
 * `<jetton wallet raw>:<master raw>`, so the detector, which sees only the notification's sender,
 * knows both that the sender is this owner's own jetton wallet and which jetton it holds.
 */
export async function jettonWallets(owner: DerivedAddress, tokens: readonly TokenDefinition[], reader: TonReader): Promise<TokenAccount[]> {
  const out: TokenAccount[] = [];
  for (const token of tokens) {
    const wallet = await reader.jettonWalletAddress(Address.parseRaw(token.matchKey), Address.parseRaw(owner.matchKey));
    out.push({
      assetKey: token.key,
      address: wallet.toString({ bounceable: true, urlSafe: true, testOnly: reader.network !== 'mainnet' }),
      matchKey: `${wallet.toRawString()}:${token.matchKey}`,
    });
  }
  return out;
}
