/** docs/reference/errors.md: every stable error code and the HTTP status it answers with. */
import { GENERATED, table } from './schemaText.mjs';

export function errorsPage(errorStatus, reasonPhrases) {
  const codes = Object.entries(errorStatus).sort(([a, x], [b, y]) => x - y || a.localeCompare(b));
  const rows = codes.map(([code, status]) => [`\`${code}\``, String(status), reasonPhrases[status] ?? 'Error']);
  return `${[
    GENERATED('`ERROR_STATUS` and `REASON_PHRASES` in plugin-kit/src/errors/codes.ts'),
    '',
    '# Error codes',
    '',
    'Every error answers `{"statusCode", "error", "message", "code"}`: `error` is the reason phrase',
    'below, `code` one of these (stable: codes are added, never renamed). When each is answered:',
    '[guide/api.md, Errors](../guide/api.md#errors).',
    '',
    table(['code', 'HTTP status', 'error (reason phrase)'], rows),
  ].join('\n')}\n`;
}
