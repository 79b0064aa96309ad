import { type AssetRef, fromBaseUnits } from '@walletd/core';
import type { Common } from '../../platform/context';
import type { WalletRow } from '../../http/scope';
import { ledger } from '../../funds/ledger';
import type { SweepRuleRow } from '../sweepRule';
import { knownAssets } from '../../wallets/transactions';
import { TOP_UP_MARGIN_PERCENT, ensureGasStation, stationPaysFees } from './gasStation';
import { keptOnSource, quoteFee, withMargin } from './quoteFee';
import { topUpSpending24h } from './stationSpending';

export interface GasStationView {
  walletId: number;
  chain: string;
  network: string;
  address: string;
  path: string;
  keyHeldIn: 'wallet' | 'token' | 'kms';
  asset: AssetRef;
  confirmed: string;
  reserved: string;
  available: string;
  marginPercent: number;
  /** What gas top-ups took or hold from the station in the last 24 hours (every rule of the wallet). */
  spentLast24h: string;
  /** One top-up at the current fee, for the wallet's first token sweep rule; null while nothing holds its token. */
  estimate: {
    ruleId: number;
    token: AssetRef;
    sweepFee: string;
    topUp: string;
    topUpFee: string;
    runway: number;
  } | null;
}

const publicAsset = ({ key, symbol, decimals, contractAddress }: AssetRef): AssetRef => ({ key, symbol, decimals, contractAddress });

/**
 * The deposit address holding the most of a token (its ledger row: credited less what left or is
 * leaving it; a sum over its transfers would miss a month taken out by `walletd archive-month`).
 */
async function holderOf(common: Common, walletId: number, assetKey: string): Promise<{ address: string; held: bigint } | null> {
  const { rows } = await common.db.raw(
    `select a.address,
            coalesce((select l.available from balance_ledger l
                       where l.wallet_id = a.wallet_id and l.address = a.address and l.asset_key = :asset), 0) as held
       from addresses a where a.wallet_id = :wallet and a.kind = 'deposit' order by held desc, a.derivation_index limit 1`,
    { asset: assetKey, wallet: walletId },
  );
  const best = rows[0] as { address: string; held: string } | undefined;
  return best && BigInt(best.held) > 0n ? { address: best.address, held: BigInt(best.held) } : null;
}

/**
 * The station as `GET /v1/wallets/:id/gas-station` shows it: its balance as walletd credits it,
 * and the runway: how many top-ups its available balance pays at the fee the node quotes now
 * (a transfer of what the address holding most of the rule's token holds, plus the
 * margin, plus the top-up's own fee). On Solana the station pays each sweep's fee as its fee
 * payer: no top-up, no margin, and the runway counts sweeps (the fee, with the destination's
 * token account rent while that account does not exist).
 */
export async function gasStationView(common: Common, wallet: WalletRow): Promise<GasStationView> {
  const station = await ensureGasStation(common, wallet);
  const native = common.plugins.chainTable().nativeAsset(wallet.chain, wallet.network);
  const show = (units: bigint) => fromBaseUnits(units < 0n ? 0n : units, native.decimals);
  const held = (await ledger(common.db, { walletId: wallet.id, address: station.address, nativeKey: native.key })).get(native.key) ?? {
    credited: 0n,
    reserved: 0n,
  };
  const available = held.credited - held.reserved;
  const spent = await topUpSpending24h(common.db, { walletId: wallet.id });
  const assets = knownAssets(common.config, common.plugins, wallet.chain, wallet.network);
  const rule = (await common
    .db('sweep_rules')
    .where({ wallet_id: wallet.id, enabled: true })
    .whereNull('deleted_at')
    .whereNot({ asset_key: native.key })
    .orderBy('id')
    .first()) as SweepRuleRow | undefined;
  const token = rule ? assets.get(rule.asset_key) : undefined;
  let estimate: GasStationView['estimate'] = null;
  const holder = rule && token ? await holderOf(common, wallet.id, token.key) : null;
  if (rule && token && holder) {
    // Quoted for what it holds: a fee may grow with the amount's encoded length. Where the station
    // pays the sweep's fee itself (a fee payer), nothing is topped up.
    const payer = stationPaysFees(common, wallet);
    const sweepFee = await quoteFee(
      common,
      wallet,
      token,
      holder.address,
      rule.destination,
      holder.held,
      payer ? station.address : undefined,
    );
    // An address holding no native coin: the fee plus margin, plus what the chain makes it keep.
    const topUp = payer
      ? 0n
      : withMargin(sweepFee, TOP_UP_MARGIN_PERCENT) + (await keptOnSource(common, wallet, token, holder.address, rule.destination));
    const topUpFee = payer ? 0n : await quoteFee(common, wallet, native, station.address, holder.address, 1n);
    const perSweep = payer ? sweepFee : topUp + topUpFee;
    const runway = available > 0n && perSweep > 0n ? available / perSweep : 0n;
    estimate = {
      ruleId: rule.id,
      token: publicAsset(token),
      sweepFee: show(sweepFee),
      topUp: show(topUp),
      topUpFee: show(topUpFee),
      runway: Number(runway),
    };
  }
  return {
    walletId: wallet.id,
    chain: wallet.chain,
    network: wallet.network,
    address: station.address,
    path: station.derivation_path,
    keyHeldIn: station.key_label ? 'token' : station.kms_key_id ? 'kms' : 'wallet',
    asset: publicAsset(native),
    confirmed: show(held.credited),
    reserved: show(held.reserved),
    available: show(available),
    marginPercent: stationPaysFees(common, wallet) ? 0 : Number(TOP_UP_MARGIN_PERCENT),
    spentLast24h: show(spent),
    estimate,
  };
}
