import type { Operation } from './operations';

/** The treasury's operations (issue 33): sweep rules, the gas station and reconciliation, listed in the OpenAPI document after the others. */
export const TREASURY_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/wallets/{id}/reconciliation',
    operationId: 'getWalletReconciliation',
    summary:
      "The last comparisons of the wallet's indexed balances with the node's, per address and asset, and how its chain's reconciliation last ran; 404 for a wallet the key does not see",
    action: 'wallets:read',
    response: 'WalletReconciliation',
  },
  {
    method: 'get',
    path: '/reconciliation',
    operationId: 'listReconciliationDrifts',
    summary:
      "Open reconciliation drifts of the key's wallets, newest first (query limit 1-500, default 200; 400 validation_failed otherwise)",
    action: 'wallets:read',
    response: 'ReconciliationDriftList',
  },
  {
    method: 'post',
    path: '/reconciliation/checks',
    operationId: 'checkReconciliationNow',
    summary:
      "Check now: compares every address of the company's wallets on every followed chain with the node at once (up to reconciliation.addressesPerRun per chain), takes the second look of any drift it sees reconciliation.confirmDelayMs later (announcing it), and answers what it found of the key's wallets. A call while the company's check runs gets that run (joined: true); a new one at most once per reconciliation.checkNowMinIntervalMs, else 429 rate_limited",
    action: 'wallets:read',
    response: 'ReconciliationCheckRun',
  },
  {
    method: 'post',
    path: '/wallets/{id}/sweep-rules',
    operationId: 'createSweepRule',
    summary:
      'Create a sweep rule (README "Sweeps"): each deposit address whose available balance of the asset reaches threshold is swept to destination, keeping minLeft, as a withdrawal of kind sweep (reserved, policy-checked: above an approval limit it becomes a withdrawal request). On UTXO chains the addresses reaching threshold are consolidated into one transaction per run at feeRate (minLeft must be 0). 400 validation_failed / invalid_address / invalid_amount; 403 policy_denied for a denied destination; 422 unknown_asset.',
    action: 'withdrawals:create',
    request: 'SweepRuleCreateRequest',
    response: 'SweepRule',
    status: 201,
  },
  {
    method: 'get',
    path: '/wallets/{id}/sweep-rules',
    operationId: 'listSweepRules',
    summary: "The wallet's sweep rules, oldest first",
    action: 'withdrawals:read',
    response: 'SweepRuleList',
  },
  {
    method: 'get',
    path: '/wallets/{id}/sweep-rules/{ruleId}',
    operationId: 'getSweepRule',
    summary: "One sweep rule (404 when it is not this wallet's or was deleted)",
    action: 'withdrawals:read',
    response: 'SweepRule',
  },
  {
    method: 'patch',
    path: '/wallets/{id}/sweep-rules/{ruleId}',
    operationId: 'updateSweepRule',
    summary: 'Change a sweep rule (destination, amounts, trigger, enabled); the next run uses it',
    action: 'withdrawals:create',
    request: 'SweepRuleUpdateRequest',
    response: 'SweepRule',
  },
  {
    method: 'delete',
    path: '/wallets/{id}/sweep-rules/{ruleId}',
    operationId: 'deleteSweepRule',
    summary: 'Delete a sweep rule: no new sweep starts; sweeps already sent are tracked to the end',
    action: 'withdrawals:create',
    status: 204,
  },
  {
    method: 'get',
    path: '/wallets/{id}/gas-station',
    operationId: 'getGasStation',
    summary:
      'The wallet\'s gas station (README "Sweeps"): the address that pays the gas of token sweeps (created at the first ask), its balance, what top-ups took in 24 hours and the runway at the current fee. EVM chains, Tron, TON and Polkadot (it tops addresses up) and Solana (it is the fee payer of the sweeps, no top-up); 422 unprocessable elsewhere',
    action: 'withdrawals:read',
    response: 'GasStation',
  },
  {
    method: 'post',
    path: '/wallets/{id}/gas-station',
    operationId: 'createGasStation',
    summary:
      "Make the wallet's gas station with its key in AWS KMS (`keyHeldIn: kms`, `kmsKeyId`; config `signers.awsKms`): its address is the KMS key's, its top-ups (Solana: fee-payer signatures) are signed in KMS. 409 conflict once the wallet has a station (a GET makes a derived one); 422 for a key of another curve than the chain's, a key KMS will not show, or without signers.awsKms",
    action: 'withdrawals:create',
    request: 'GasStationCreateRequest',
    response: 'GasStation',
    status: 201,
  },
];
