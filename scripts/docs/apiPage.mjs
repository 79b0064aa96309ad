/** docs/reference/api.md: every operation and schema of the OpenAPI document `GET /v1/openapi.json` serves. */
import { GENERATED, anchor, cell, propertyRows, refName, table, typeText } from './schemaText.mjs';

const link = (name) => `#${anchor(name)}`;
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

function bodyText(content, l) {
  const json = content?.['application/json']?.schema;
  if (json) return typeText(json, l);
  const text = content?.['text/plain'];
  return text ? 'text/plain' : '';
}

function operation(path, method, op, base) {
  const lines = [`### ${method.toUpperCase()} ${base}${path}`, '', cell(op.summary), ''];
  if (op.description) lines.push(op.description, '');
  lines.push(op.security?.length ? 'Authentication: an API key (`Authorization: Bearer svc_live_…`).' : 'Authentication: none.', '');
  if (op.parameters?.length) {
    const rows = op.parameters.map((p) => [`\`${p.name}\``, p.in, p.required ? 'yes' : '', typeText(p.schema, link), p.description ?? '']);
    lines.push(table(['parameter', 'in', 'required', 'type', 'meaning'], rows), '');
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) lines.push(`Request body: ${typeText(body, link)}`, '');
  const rows = Object.entries(op.responses ?? {}).map(([status, r]) => [status, r.description ?? '', bodyText(r.content, link)]);
  lines.push(table(['status', 'meaning', 'body'], rows), '');
  return lines;
}

/** The page for the document `buildOpenApi` makes (the same function the server serves from). */
export function apiPage(doc) {
  const base = doc.servers?.[0]?.url ?? '';
  const lines = [
    GENERATED('the OpenAPI document, `buildOpenApi` in schemas/src/openapi.ts'),
    '',
    '# HTTP API reference',
    '',
    `OpenAPI ${doc.openapi}; a running walletd serves the document at \`GET /v1/openapi.json\`, with the`,
    'chains its loaded plugins serve in every request\u2019s `chain` field. Errors share one body',
    '([ErrorBody](#errorbody)); their codes: [errors.md](errors.md). How to use the API:',
    '[guide/api.md](../guide/api.md).',
    '',
    '## Operations',
    '',
  ];
  for (const [path, item] of Object.entries(doc.paths)) {
    const itemBase = item.servers ? '' : base;
    for (const method of METHODS) if (item[method]) lines.push(...operation(path, method, item[method], itemBase));
  }
  lines.push('## Schemas', '');
  for (const [name, s] of Object.entries(doc.components.schemas)) {
    lines.push(`### ${name}`, '');
    if (s.description) lines.push(cell(s.description), '');
    const rows = propertyRows(s, link);
    if (rows.length) lines.push(table(['field', 'type', 'required', 'bounds', 'meaning'], rows), '');
    else lines.push(`${typeText(s, link)}`, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

export { refName };
