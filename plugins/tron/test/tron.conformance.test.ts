import { createTronPlugin } from '@walletd/plugin-tron';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { TRON_NETWORKS, tronSubject, tronWithdrawals } from './tronScenario';

// The same real mainnet data replayed on every Tron network: the rules are the network's, the bytes are real.
describePluginConformance(tronSubject(createTronPlugin()));
for (const network of TRON_NETWORKS) describeWithdrawalConformance(createTronPlugin(), tronWithdrawals(network));
