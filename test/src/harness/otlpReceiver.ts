import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, its attributes flattened, with its resource's. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts to `/v1/traces`). */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received (each a POST to /v1/traces), with their content type. */
  posts: { path: string; contentType: string }[];
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

const anyValue = (v: AnyValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.boolValue ??
  v.doubleValue ??
  v.arrayValue?.values?.map(anyValue);
const flatten = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, anyValue(kv.value)]));

/**
 * An OpenTelemetry collector's OTLP/HTTP trace endpoint, as far as a test needs it: a real HTTP
 * server that decodes the JSON encoding of ExportTraceServiceRequest (what
 * @opentelemetry/exporter-trace-otlp-http sends) and answers as a collector does.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const posts: OtlpReceiver['posts'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', contentType: String(req.headers['content-type']) });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
      };
      for (const rs of body.resourceSpans ?? []) {
        const resource = flatten(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId as string,
              spanId: s.spanId as string,
              parentSpanId: (s.parentSpanId as string | undefined) ?? '',
              name: s.name as string,
              kind: s.kind as number,
              attributes: flatten(s.attributes as KeyValue[]),
              links: ((s.links as { traceId: string; spanId: string }[] | undefined) ?? []).map((l) => ({
                traceId: l.traceId,
                spanId: l.spanId,
              })),
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    posts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
