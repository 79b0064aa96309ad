/** The spec's six (section 6.1): a subscription to `*` receives exactly these. */
export const EVENT_TYPES = [
  'deposit.detected',
  'deposit.confirmed',
  'deposit.rejected',
  'withdrawal.broadcast',
  'withdrawal.confirmed',
  'withdrawal.rejected',
] as const;

/**
 * Types beyond the spec's six, delivered only to a webhook that names them in `events` (never to
 * `*`) and listed by the event feed only when asked for (`types=`): a receiver written against the
 * spec, which rejects an unknown type, never meets one it did not ask for.
 */
export const OPT_IN_EVENT_TYPES = ['reconciliation.drift', 'reconciliation.cleared'] as const;

export type SpecEventType = (typeof EVENT_TYPES)[number];
export type OptInEventType = (typeof OPT_IN_EVENT_TYPES)[number];
export type EventType = SpecEventType | OptInEventType;

export const isEventType = (s: string): s is EventType =>
  (EVENT_TYPES as readonly string[]).includes(s) || (OPT_IN_EVENT_TYPES as readonly string[]).includes(s);

export const isOptInEventType = (s: string): s is OptInEventType => (OPT_IN_EVENT_TYPES as readonly string[]).includes(s);

/** Spec 2.4. `data` repeats chain and network. */
export interface EventEnvelope<D = Record<string, unknown>> {
  id: string;
  type: EventType;
  chain: string;
  network: string;
  companyId: number;
  createdAt: string;
  data: D;
}
