import { linkPath } from './memberLinks';

/**
 * The address a person opens the console at, from where it listens. A wildcard or loopback bind is
 * reached as localhost by whoever reads the terminal; any other host is named as configured.
 */
export function consoleBaseUrl(host: string, port: number): string {
  const local = ['0.0.0.0', '::', '127.0.0.1', '::1', ''].includes(host);
  const name = local ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The full URL of a one-time invitation or reset link. */
export const consoleLinkUrl = (host: string, port: number, token: string): string => `${consoleBaseUrl(host, port)}${linkPath(token)}`;
