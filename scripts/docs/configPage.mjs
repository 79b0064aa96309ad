/** docs/reference/configuration.md: every key of the config file's JSON Schema, with its default. */
import { GENERATED, constraintText, table, typeText } from './schemaText.mjs';

const noLink = (name) => `#${name.toLowerCase()}`;

/** The default at a dotted path of DEFAULT_CONFIG (`server.port`), or undefined. */
function defaultAt(defaults, path) {
  let v = defaults;
  for (const part of path) v = v && typeof v === 'object' && !Array.isArray(v) ? v[part] : undefined;
  return v;
}

/** Keys whose default is not in DEFAULT_CONFIG: worked out at start, said so here. */
const DERIVED = {
  masterKeyFile: '`<dataDir>/master.key` (when null)',
  'webhooks.maxInFlightPerWebhook': 'a quarter of `webhooks.concurrency` (when unset)',
};

function rows(schema, defaults, path = [], out = []) {
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    if (name === '$schema') continue;
    const here = [...path, name];
    const key = here.join('.');
    if (s.properties && s.type === 'object') {
      rows(s, defaults, here, out);
      continue;
    }
    const d = defaultAt(defaults, here);
    const shown = DERIVED[key] ?? (d === undefined ? '' : `\`${JSON.stringify(d)}\``);
    out.push([`\`${key}\``, typeText(s, noLink), constraintText(s), shown, s.description ?? '']);
    if (s.items?.properties) {
      for (const r of rows(s.items, {}, [`${key}[]`])) out.push(r);
    }
  }
  return out;
}

export function configPage(schema, defaults) {
  return `${[
    GENERATED('the config schema and its defaults (core/src/config/schema.ts, defaults.ts)'),
    '',
    '# Configuration reference',
    '',
    'Every key the config file may hold (a key not listed stops start-up, naming it), its type, the',
    'bounds the schema enforces and its default. What each knob does, and the environment variables',
    'that override the file: [operate/configuration.md](../operate/configuration.md).',
    '',
    table(['key', 'type', 'bounds', 'default', 'schema note'], rows(schema, defaults)),
  ].join('\n')}\n`;
}
