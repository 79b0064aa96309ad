import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import type { ConsolePasskey } from '@walletd/schemas';
import { api } from './api';

/** A passkey as the console lists it (the contract's ConsolePasskey, built by the server's passkeyView). */
export type Passkey = ConsolePasskey;

/** Enrolls a passkey: the server's options, the browser's ceremony, the server's check. */
export async function enrollPasskey(name: string): Promise<Passkey> {
  const optionsJSON = await api<PublicKeyCredentialCreationOptionsJSON>('POST', '/passkeys/options');
  const response = await startRegistration({ optionsJSON });
  return api<Passkey>('POST', '/passkeys', { response, name });
}

/** A step-up with a passkey: a challenge bound to this session, signed by the authenticator. */
export async function passkeyStepUp(): Promise<void> {
  const optionsJSON = await api<PublicKeyCredentialRequestOptionsJSON>('POST', '/step-up/passkey-options');
  await api('POST', '/step-up', { passkey: await startAuthentication({ optionsJSON }) });
}

/** Sign-in's second step: the assertion over the challenge the `mfa_required` answer carried. */
export const signInAssertion = (optionsJSON: PublicKeyCredentialRequestOptionsJSON) => startAuthentication({ optionsJSON });
