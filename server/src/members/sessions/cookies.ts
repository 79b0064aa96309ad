import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'walletd_session';
export const CSRF_COOKIE = 'walletd_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The session cookie: httpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it), Secure over HTTPS or when told TLS ends in front, scoped to the console's path. The CSRF
 * cookie is readable by the console's own script, which echoes it in a header.
 */
export function setSessionCookies(res: Response, token: string, csrf: string, secure: boolean): void {
  const flags = `Path=/console; SameSite=Strict${secure ? '; Secure' : ''}`;
  res.append('Set-Cookie', `${SESSION_COOKIE}=${token}; ${flags}; HttpOnly`);
  res.append('Set-Cookie', `${CSRF_COOKIE}=${csrf}; ${flags}`);
}

export function clearSessionCookies(res: Response, secure: boolean): void {
  const flags = `Path=/console; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
  res.append('Set-Cookie', `${SESSION_COOKIE}=; ${flags}; HttpOnly`);
  res.append('Set-Cookie', `${CSRF_COOKIE}=; ${flags}`);
}
