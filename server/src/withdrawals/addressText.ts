import { BaseError } from '@walletd/core';

/**
 * An address is taken exactly as written, by the API and the admin CLI alike: text with blanks
 * around it (spaces, tabs, line breaks, no-break or zero-width spaces) is refused by name, never
 * trimmed into something the caller did not send. No chain's address contains one.
 */
export function refusePaddedAddress(text: string, field: string): void {
  if (/^(?:\s|\u200b|\u200c|\u200d|\u2060)|(?:\s|\u200b|\u200c|\u200d|\u2060)$/u.test(text))
    throw new BaseError('invalid_address', `${field} ${JSON.stringify(text)} has blanks around it; give the address exactly, without them`);
}
