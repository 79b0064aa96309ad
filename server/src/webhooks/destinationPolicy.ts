import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { BaseError, normaliseIp, parseCidr } from '@walletd/core';

/**
 * Where deliveries may go. Only globally routable unicast addresses, unless the operator
 * allow-lists a range (`webhooks.allowCidrs` / WALLETD_WEBHOOK_ALLOW_CIDRS). Loopback, private,
 * link-local (cloud metadata 169.254.169.254), CGNAT (100.64/10, incl. 100.100.100.200),
 * unique-local (fd00:ec2::254), multicast, reserved and IPv4-mapped/NAT64 forms of those are refused.
 */
export class DestinationPolicy {
  readonly #ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  // Verdicts per address string: the policy never changes for its lifetime, and parsing is the
  // dispatcher's hottest non-network cost (measured in bench/).
  readonly #verdicts = new Map<string, string | null>();
  readonly #allowed = new Map<string, boolean>();

  constructor(allowCidrs: readonly string[]) {
    this.#ranges = allowCidrs.map((c) => parseCidr(c));
  }

  isAllowListed(ip: string): boolean {
    if (this.#ranges.length === 0) return false;
    const cached = this.#allowed.get(ip);
    if (cached !== undefined) return cached;
    const addr = normaliseIp(ip);
    const allowed = addr !== null && this.#ranges.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits));
    if (this.#allowed.size > 10_000) this.#allowed.clear();
    this.#allowed.set(ip, allowed);
    return allowed;
  }

  /** null when the address may be reached over https; otherwise why not. */
  refusal(ip: string): string | null {
    const cached = this.#verdicts.get(ip);
    if (cached !== undefined) return cached;
    const verdict = this.#judge(ip);
    if (this.#verdicts.size > 10_000) this.#verdicts.clear();
    this.#verdicts.set(ip, verdict);
    return verdict;
  }

  #judge(ip: string): string | null {
    const addr = normaliseIp(ip);
    if (!addr) return `"${ip}" is not an IP address`;
    if (this.isAllowListed(ip)) return null;
    const range = addr.range();
    // IPv4-compatible IPv6 (::a.b.c.d, deprecated) embeds an IPv4 address that the range check would miss.
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0))
      return `${addr.toString()} is an IPv4-compatible address`;
    return range === 'unicast' ? null : `${addr.toString()} is a ${range} address`;
  }

  /**
   * Checks a receiver URL when a webhook is created or changed: https, or plain http toward an
   * allow-listed range; no credentials; a literal address must be reachable. Host names are
   * checked again on every connection (DNS may change).
   */
  checkUrl(raw: unknown, field = 'config.url'): URL {
    if (typeof raw !== 'string' || raw.length > 2048) throw new BaseError('validation_failed', `${field} must be a URL string`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new BaseError('validation_failed', `${field} is not a valid URL`);
    }
    if (url.username || url.password) throw new BaseError('validation_failed', `${field} must not contain credentials`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = isIP(host) !== 0;
    if (url.protocol === 'http:') {
      const allowed = literal ? this.isAllowListed(host) : host === 'localhost' && this.isAllowListed('127.0.0.1');
      if (!allowed) throw new BaseError('validation_failed', `${field} must use https (plain http only toward allow-listed ranges)`);
    } else if (url.protocol !== 'https:') {
      throw new BaseError('validation_failed', `${field} must use https`);
    }
    if (literal) {
      const why = this.refusal(host);
      if (why) throw new BaseError('validation_failed', `${field} points at a non-public address: ${why}`);
    }
    return url;
  }
}
