import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApi, OPERATIONS } from './openapi';

type Doc = { paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[] }>> };

describe('the OpenAPI document', () => {
  it("passes redocly's recommended rules with no error and no warning", async () => {
    // The script lints the built dist (npm test builds first), in its own node: the linter is ESM-only.
    const script = join(__dirname, '..', 'scripts', 'lintOpenApi.mjs');
    const run = await promisify(execFile)(process.execPath, [script]).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('declares every path parameter, the query parameters and unique operation ids', () => {
    const doc = buildOpenApi('1.10.0', ['ethereum']) as Doc;
    const ids = OPERATIONS.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics']));
    const names = (path: string, method: string) => doc.paths[path]?.[method]?.parameters?.map((p) => `${p.in}:${p.name}`);
    expect(names('/webhooks/{id}/deliveries/{deliveryId}', 'get')).toEqual(['path:id', 'path:deliveryId']);
    expect(names('/events', 'get')).toEqual(['query:after', 'query:limit', 'query:types']);
    expect(names('/wallets/{id}/reconciliation', 'get')).toEqual(['path:id']);
    expect(names('/reconciliation', 'get')).toEqual(['query:limit']);
    expect(names('/wallets/{id}/withdrawals', 'get')).toEqual(['path:id', 'query:status', 'query:after', 'query:limit']);
  });
});
