import { Secret, TOTP } from 'otpauth';
import { Browser, type ConsoleServer } from './consoleApp';

/**
 * The invitee's part of onboarding from a one-time link's token (an invitation made in the
 * console, or read from a mail): sets a password, enrolls TOTP, signs in again with a code.
 * Like `onboardMember` without the invitation, which someone else made. Test-only.
 */
export async function signUpWithLink(con: ConsoleServer, token: string, email: string) {
  const password = 'correct horse battery staple';
  const b = new Browser(con.url);
  const expectStatus = (what: string, r: { status: number; body: unknown }, status: number) => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  expectStatus('accept link', await b.call('POST', `/console/api/links/${token}`, { body: { password } }), 200);
  expectStatus('first sign-in', await b.call('POST', '/console/api/session', { body: { email, password } }), 201);
  const secret = (await b.call('POST', '/console/api/mfa/enroll')).body.secret as string;
  const code = () => {
    con.clock.now += 30_000;
    return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: con.clock.now });
  };
  expectStatus('mfa verify', await b.call('POST', '/console/api/mfa/verify', { body: { code: code() } }), 200);
  expectStatus('sign out', await b.call('DELETE', '/console/api/session'), 204);
  expectStatus('sign-in with code', await b.call('POST', '/console/api/session', { body: { email, password, code: code() } }), 201);
  return { b, email, password, secret, code };
}
