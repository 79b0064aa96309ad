import ipaddr from 'ipaddr.js';
import { BaseError } from '@walletd/plugin-kit';

/** Parses and checks CIDR allow-lists (IPv4, IPv6, and IPv4-mapped IPv6 clients). */
export function parseCidr(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const t = text.trim();
  try {
    return t.includes('/') ? ipaddr.parseCIDR(t) : ((a) => [a, a.kind() === 'ipv4' ? 32 : 128] as [typeof a, number])(ipaddr.parse(t));
  } catch {
    throw new BaseError('input_invalid', `"${t}" is not an IP address or CIDR range`);
  }
}

export function normaliseIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (!ipaddr.isValid(ip)) return null;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr;
}

export function ipInList(ip: string, cidrs: readonly string[]): boolean {
  const addr = normaliseIp(ip);
  if (!addr) return false;
  for (const c of cidrs) {
    const [range, bits] = parseCidr(c);
    if (range.kind() === addr.kind() && addr.match(range, bits)) return true;
  }
  return false;
}
