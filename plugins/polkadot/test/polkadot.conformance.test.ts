import { createPolkadotPlugin } from '@walletd/plugin-polkadot';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { polkadotSubject, polkadotWithdrawals } from './polkadotScenario';

describePluginConformance(polkadotSubject(createPolkadotPlugin() as never, { live: true }));
// Withdrawals executed by the Rococo Asset Hub runtime under chopsticks (a block is built on settle).
describeWithdrawalConformance(createPolkadotPlugin() as never, polkadotWithdrawals);
