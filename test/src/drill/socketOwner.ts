import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Which of `ports` (local TCP ports on this host) are sockets of process `pid`: from /proc, the
 * socket inodes among its file descriptors and the inode of each local port in /proc/net/tcp{,6}.
 * The drill uses it to tell which dispatcher a held webhook request came from.
 */
export function portsOwnedBy(pid: number, ports: number[]): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1] as string);
    } catch {
      /* closed while we read */
    }
  }
  const owned = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const port = Number.parseInt((cols[1] as string).split(':')[1] as string, 16);
      if (ports.includes(port) && inodes.has(cols[9] as string)) owned.add(port);
    }
  }
  return [...owned];
}
