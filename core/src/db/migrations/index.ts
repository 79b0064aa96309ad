import type { Knex } from 'knex';
import * as m001 from './001_initial';
import * as m002 from './002_withdrawals';
import * as m003 from './003_mempool';
import * as m004PendingDelivery from './004_pending_delivery_unique';
import * as m005ChainHealth from './005_chain_health';
import * as m006IndexerFencing from './006_indexer_fencing';
import * as m007WithdrawalClaims from './007_withdrawal_claims';
import * as m008WithdrawalOutputMemos from './008_withdrawal_output_memos';
import * as m009ChangeAddresses from './009_change_addresses';
import * as m010Addressing from './010_addressing';
import * as m011UnloggedRateLimits from './011_unlogged_rate_limits';
import * as m012DeliveryDueOrder from './012_delivery_due_order';
import * as m013PolkadotTransferKey from './013_polkadot_transfer_key';
import * as m014WithdrawalReservations from './014_withdrawal_reservations';
import * as m015DeliveryByEvent from './015_delivery_by_event';
import * as m016EndpointBudgets from './016_endpoint_budgets';
import * as m017MemberSignIn from './017_member_sign_in';
import * as m018VoteProvenance from './018_vote_provenance';
import * as m019AuditAppendOnly from './019_audit_append_only';
import * as m020HistoryIndexes from './020_history_indexes';
import * as m023DeliveryRetention from './023_delivery_retention';
import * as m024Reconciliation from './024_reconciliation';
import * as m025SweepRules from './025_sweep_rules';
import * as m026BalanceLedger from './026_balance_ledger';
import * as m027Retention from './027_retention';
import * as m028SearchIndexes from './028_search_indexes';
import * as m029GasStation from './029_gas_station';
import * as m030SweepFeeRate from './030_sweep_fee_rate';
import * as m031ArchivedMonths from './031_archived_months';
import * as m032DetachedConfirmed from './032_detached_confirmed';
import * as m033ReconciliationExplained from './033_reconciliation_explained';
import * as m035QuorumIntegrity from './035_quorum_integrity';
import * as m039LeaseHolder from './039_lease_holder';
import * as m040ClaimFunction from './040_claim_function';
import * as m041ClaimRoomForOthers from './041_claim_room_for_others';
import * as m042TokenHeldKeys from './042_token_held_keys';
import * as m043WithdrawalAttempts from './043_withdrawal_attempts';
import * as m044EventTraceContext from './044_event_trace_context';
import * as m045AutoBump from './045_auto_bump';
import * as m046KmsHeldKeys from './046_kms_held_keys';
import * as m047DeliveryEventTime from './047_delivery_event_time';
import * as m048ClaimSaysBusy from './048_claim_says_busy';
import * as m049PassBackedOffAtInsert from './049_pass_backed_off_at_insert';
import * as m050ClaimDueByIndex from './050_claim_due_by_index';
import * as m051ClaimFirstAttemptHere from './051_claim_first_attempt_here';
import * as m036MemberPasskeys from './036_member_passkeys';
import * as m037RequestSending from './037_request_sending';
import * as m038AddressBook from './038_address_book';
import { InvariantError } from '@walletd/plugin-kit';

/**
 * Migrations are listed here rather than discovered on disk, so the same list works from the
 * TypeScript sources (tests) and the compiled output (the CLI). Append only.
 */
const MIGRATIONS: Record<string, Knex.Migration> = {
  '001_initial': m001,
  '002_withdrawals': m002,
  '003_mempool': m003,
  '004_pending_delivery_unique': m004PendingDelivery,
  '005_chain_health': m005ChainHealth,
  '006_indexer_fencing': m006IndexerFencing,
  '007_withdrawal_claims': m007WithdrawalClaims,
  '008_withdrawal_output_memos': m008WithdrawalOutputMemos,
  '009_change_addresses': m009ChangeAddresses,
  '010_addressing': m010Addressing,
  '011_unlogged_rate_limits': m011UnloggedRateLimits,
  '012_delivery_due_order': m012DeliveryDueOrder,
  '013_polkadot_transfer_key': m013PolkadotTransferKey,
  '014_withdrawal_reservations': m014WithdrawalReservations,
  '015_delivery_by_event': m015DeliveryByEvent,
  '016_endpoint_budgets': m016EndpointBudgets,
  '017_member_sign_in': m017MemberSignIn,
  '018_vote_provenance': m018VoteProvenance,
  '019_audit_append_only': m019AuditAppendOnly,
  '020_history_indexes': m020HistoryIndexes,
  '023_delivery_retention': m023DeliveryRetention,
  '024_reconciliation': m024Reconciliation,
  '025_sweep_rules': m025SweepRules,
  '026_balance_ledger': m026BalanceLedger,
  '027_retention': m027Retention,
  '028_search_indexes': m028SearchIndexes,
  '029_gas_station': m029GasStation,
  '030_sweep_fee_rate': m030SweepFeeRate,
  '031_archived_months': m031ArchivedMonths,
  '032_detached_confirmed': m032DetachedConfirmed,
  '033_reconciliation_explained': m033ReconciliationExplained,
  '035_quorum_integrity': m035QuorumIntegrity,
  '039_lease_holder': m039LeaseHolder,
  '040_claim_function': m040ClaimFunction,
  '036_member_passkeys': m036MemberPasskeys,
  '037_request_sending': m037RequestSending,
  '038_address_book': m038AddressBook,
  '041_claim_room_for_others': m041ClaimRoomForOthers,
  '042_token_held_keys': m042TokenHeldKeys,
  '043_withdrawal_attempts': m043WithdrawalAttempts,
  '044_event_trace_context': m044EventTraceContext,
  '045_auto_bump': m045AutoBump,
  '046_kms_held_keys': m046KmsHeldKeys,
  '047_delivery_event_time': m047DeliveryEventTime,
  '048_claim_says_busy': m048ClaimSaysBusy,
  '049_pass_backed_off_at_insert': m049PassBackedOffAtInsert,
  '050_claim_due_by_index': m050ClaimDueByIndex,
  '051_claim_first_attempt_here': m051ClaimFirstAttemptHere,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const m = MIGRATIONS[name];
    if (!m) throw new InvariantError(`unknown migration ${name}`);
    return m;
  },
};
