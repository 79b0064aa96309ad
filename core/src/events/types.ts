export const EVENT_TYPES = [
  'deposit.detected',
  'deposit.confirmed',
  'deposit.rejected',
  'withdrawal.broadcast',
  'withdrawal.confirmed',
  'withdrawal.rejected',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (s: string): s is EventType => (EVENT_TYPES as readonly string[]).includes(s);

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
