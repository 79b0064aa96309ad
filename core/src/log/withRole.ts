import type { Logger } from './logger';

/**
 * A component's logger carrying `role` exactly once. pino does not replace a binding a child
 * repeats, it writes the key twice; so a component running under a logger that already names its
 * role (a one-role command such as `walletd admin`) keeps that role instead of adding a second one.
 */
export function withRole(logger: Logger, role: string): Logger {
  return 'role' in logger.bindings() ? logger : logger.child({ role });
}
