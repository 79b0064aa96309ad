import { context, trace } from '@opentelemetry/api';
import { type Logger, type Metrics, setTracingOn } from '@walletd/core';
import { tracingConfigured } from './tracingConfigured';

type Sdk = typeof import('@opentelemetry/sdk-trace');
type Resources = typeof import('@opentelemetry/resources');
type Exporter = typeof import('@opentelemetry/exporter-trace-otlp-http');
type AsyncHooks = typeof import('@opentelemetry/context-async-hooks');
type SpanExporter = import('@opentelemetry/sdk-trace').SpanExporter;
type ReadableSpan = import('@opentelemetry/sdk-trace').ReadableSpan;
type ExportDone = Parameters<SpanExporter['export']>[1];

export interface Tracing {
  /** Sends what is buffered and stops (at shutdown). */
  shutdown(): Promise<void>;
}

/**
 * Registers the tracer provider when an OTLP endpoint is configured (tracingConfigured.ts): spans
 * batched to the OTLP/HTTP exporter (JSON; `OTEL_EXPORTER_OTLP_*` for the endpoint and headers,
 * `OTEL_BSP_SCHEDULE_DELAY` for the batch's delay), the resource from `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`, `walletd` and the process's roles otherwise. Spans an export failed
 * to send are counted (`walletd_trace_export_failures_total`). null when traces are off.
 */
export function startTracing(roles: readonly string[], logger: Logger, metrics?: Metrics): Tracing | null {
  if (!tracingConfigured()) return null;
  const { TracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace') as Sdk;
  const { detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as Resources;
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as Exporter;
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as AsyncHooks;
  const resource = resourceFromAttributes({
    'service.name': 'walletd',
    'service.namespace': 'walletd',
    'walletd.roles': roles.join(','),
    'process.pid': process.pid,
  }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = countingFailures(new OTLPTraceExporter(), logger, metrics);
  const delay = Number(process.env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new TracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: delay > 0 ? delay : 5_000 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  setTracingOn(true);
  logger.info({ service: resource.attributes['service.name'] }, 'traces: sending spans to the OTLP endpoint');
  return {
    async shutdown() {
      setTracingOn(false);
      await provider.shutdown();
    },
  };
}

/** The exporter, counting the spans of each export that failed (logged once per failing stretch). */
function countingFailures(inner: SpanExporter, logger: Logger, metrics?: Metrics): SpanExporter {
  let failing = false;
  return {
    export(spans: ReadableSpan[], done: ExportDone) {
      inner.export(spans, (result) => {
        if (result.code !== 0) {
          metrics?.traceExportFailures.inc(spans.length);
          if (!failing) logger.warn({ spans: spans.length, error: result.error?.message }, 'traces: export to the OTLP endpoint failed');
        } else if (failing) logger.info('traces: export to the OTLP endpoint works again');
        failing = result.code !== 0;
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
