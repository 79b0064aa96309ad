import { createTonPlugin } from '@walletd/plugin-ton';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { tonSubject, tonWithdrawals } from './tonScenario';

// Real TON transactions (recorded mainnet BOCs, and BOCs the emulator executed) replayed on every TON network.
describePluginConformance(tonSubject(createTonPlugin()));
// Withdrawals executed by the real emulator behind the toncenter test adapter (devchains/src/tonSandbox.ts).
describeWithdrawalConformance(createTonPlugin(), tonWithdrawals);
