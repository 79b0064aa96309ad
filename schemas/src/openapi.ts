import { type Operation, OPERATIONS } from './operations';
import { PATH_PARAMETERS, type Parameter, QUERY_PARAMETERS, pathParameterNames } from './parameters';
import { ChainName } from './common';
import { SCHEMAS } from './registry';
import { InvariantError } from '@walletd/core';

export { type Operation, OPERATIONS } from './operations';

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Rewrites `$ref: "Wallet"` to OpenAPI component references. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$id') continue;
      out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

/** Probes and metrics, served beside /v1 without an API key (and outside the rate limiter). */
function operationalPaths(): Record<string, unknown> {
  const root = [{ url: '/' }];
  const wrongMethod = { description: 'any other method', content: { 'application/json': { schema: ref('ErrorBody') } } };
  const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
  const status = (value: string) => ({
    type: 'object',
    required: ['status'],
    additionalProperties: false,
    properties: { status: { const: value } },
  });
  return {
    '/healthz': {
      servers: root,
      get: {
        operationId: 'getHealth',
        summary: 'Liveness: the process answers HTTP and can recover by itself; 503 once its embedded PostgreSQL could not be restarted',
        security: [],
        responses: {
          '200': { description: 'alive', content: { 'application/json': { schema: status('ok') } } },
          '405': wrongMethod,
          '503': {
            description: 'cannot recover by itself: restart the process',
            content: { 'application/json': { schema: ref('ErrorBody') } },
          },
        },
      },
    },
    '/readyz': {
      servers: root,
      get: {
        operationId: 'getReadiness',
        summary: 'Readiness: the database answers; 503 while it does not',
        security: [],
        responses: {
          '200': { description: 'ready', content: { 'application/json': { schema: status('ready') } } },
          '405': wrongMethod,
          '503': {
            description: 'not ready: database unreachable or down, disk full, or a chain not ready',
            content: { 'application/json': { schema: ref('ErrorBody') } },
          },
        },
      },
    },
    '/metrics': {
      servers: root,
      get: {
        operationId: 'getMetrics',
        summary: 'Prometheus metrics of this process, text exposition format (API role only)',
        security: [],
        responses: { '200': text('Prometheus text format 0.0.4'), '405': wrongMethod },
      },
    },
  };
}

function parametersOf(op: Operation): Parameter[] {
  const fromPath = pathParameterNames(op.path).map((name) => {
    const p = PATH_PARAMETERS[name];
    if (!p) throw new InvariantError(`no description for the path parameter {${name}} of ${op.path}`);
    return p;
  });
  return [...fromPath, ...(QUERY_PARAMETERS[op.operationId] ?? [])];
}

/**
 * A request's chain field as the document shows it: one of the chains the loaded plugins serve
 * (validation accepts any name of the form and answers 422 `chain_not_supported` for the others,
 * so the document, built after the plugins load, is what is served). Responses keep the name's
 * form: a wallet made under another set of plugins still reads.
 */
function withLoadedChains(schema: unknown, chains: readonly string[]): unknown {
  const s = schema as { properties?: Record<string, unknown> };
  if (!s.properties) return schema;
  const properties = Object.fromEntries(
    Object.entries(s.properties).map(([k, v]) => [k, v === ChainName ? { ...ChainName, enum: [...chains] } : v]),
  );
  return { ...s, properties };
}

/** `chains`: the chains the loaded plugins serve (`registry.chainTable().chains()`). */
export function buildOpenApi(version: string, chains: readonly string[]): Record<string, unknown> {
  const requests = new Set<string>(OPERATIONS.flatMap((op) => (op.request ? [op.request] : [])));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const errors = { description: 'Error', content: { 'application/json': { schema: ref('ErrorBody') } } };
    const ok = op.response
      ? { description: 'OK', content: { 'application/json': { schema: ref(op.response) } } }
      : { description: 'No content' };
    const parameters = parametersOf(op);
    paths[op.path] ??= {};
    (paths[op.path] as Record<string, unknown>)[op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.action ? { description: `Requires the \`${op.action}\` action.` } : {}),
      security: [{ apiKey: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(op.request ? { requestBody: { required: true, content: { 'application/json': { schema: ref(op.request) } } } } : {}),
      responses: { [String(op.status ?? 200)]: ok, '4XX': errors, '5XX': errors },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'walletd API', version, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    servers: [{ url: '/v1' }],
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'svc_live_… API key' } },
      schemas: Object.fromEntries(
        Object.entries(SCHEMAS).map(([id, s]) => [id, rewriteRefs(requests.has(id) ? withLoadedChains(s, chains) : s)]),
      ),
    },
    paths: { ...paths, ...operationalPaths() },
  };
}
