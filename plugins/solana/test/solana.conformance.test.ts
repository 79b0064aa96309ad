import { createSolanaPlugin } from '@walletd/plugin-solana';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { solanaSubject, solanaWithdrawals } from './solanaScenario';

describePluginConformance(solanaSubject(createSolanaPlugin() as never));
// Withdrawals executed by litesvm behind the JSON-RPC adapter (a transaction is in a block at once).
describeWithdrawalConformance(createSolanaPlugin() as never, solanaWithdrawals);
