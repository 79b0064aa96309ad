/** docs/reference/events.md: the event types webhooks and the feed carry, and their data. */
import { GENERATED, anchor, propertyRows, table } from './schemaText.mjs';

/** A referenced schema is described on the API page. */
const link = (name) => `api.md#${anchor(name)}`;

const DATA = { deposit: 'DepositEventData', withdrawal: 'WithdrawalEventData', reconciliation: 'ReconciliationEventData' };

export function eventsPage({ EVENT_TYPES, OPT_IN_EVENT_TYPES, EventEnvelope, ...schemas }) {
  const type = (t, optIn) => [
    `\`${t}\``,
    `[${DATA[t.split('.')[0]]}](#${anchor(DATA[t.split('.')[0]])})`,
    optIn ? 'only when named' : 'yes',
  ];
  const lines = [
    GENERATED('the event schemas in schemas/src/events.ts and the event types in core'),
    '',
    '# Events',
    '',
    'Each webhook delivery and each entry of the feed `GET /v1/events` is one envelope. A webhook',
    'subscribed to `*` gets the types marked yes; the others reach only a webhook or feed call that',
    'names them. Delivery, signing and retries: [guide/webhooks.md](../guide/webhooks.md).',
    '',
    table(['type', 'data', 'in `*`'], [...EVENT_TYPES.map((t) => type(t, false)), ...OPT_IN_EVENT_TYPES.map((t) => type(t, true))]),
    '',
    '## EventEnvelope',
    '',
    table(['field', 'type', 'required', 'bounds', 'meaning'], propertyRows(EventEnvelope, link)),
    '',
  ];
  for (const name of Object.values(DATA)) {
    lines.push(`## ${name}`, '', table(['field', 'type', 'required', 'bounds', 'meaning'], propertyRows(schemas[name], link)), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
