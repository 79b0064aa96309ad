import { createXrpPlugin } from '@walletd/plugin-xrp';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { xrpSubject, xrpWithdrawals } from './xrpScenario';

// The same real mainnet data replayed on every XRP network: the rules are the network's, the bytes are real.
describePluginConformance(xrpSubject(createXrpPlugin()));
describeWithdrawalConformance(createXrpPlugin(), xrpWithdrawals);
