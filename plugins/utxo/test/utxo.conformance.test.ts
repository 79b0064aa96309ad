import { createUtxoPlugin } from '@walletd/plugin-utxo';
import { describePluginConformance, describeWithdrawalConformance } from '@walletd/plugin-kit/testing';
import { describeWithLitecoind } from '@walletd/test-harness';
import { utxoSubject, utxoWithdrawals } from './utxoScenario';

describePluginConformance(utxoSubject(createUtxoPlugin()));
describeWithLitecoind('UTXO withdrawals on regtest', () => describeWithdrawalConformance(createUtxoPlugin(), utxoWithdrawals));
