import { createEvmPlugin } from '@walletd/plugin-evm';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { evmSubject, evmWithdrawals } from './evmScenario';

// The same real transactions replayed as if on each EVM chain: the rules are the chain's, the bytes are real.
describePluginConformance(evmSubject(createEvmPlugin()));
describeWithdrawalConformance(createEvmPlugin(), evmWithdrawals);
