import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
} from '@opentelemetry/api';

/**
 * walletd's spans (docs/operate/monitoring.md, "Traces"). Through the OpenTelemetry API only: until
 * `walletd serve` registers a tracer provider (when an OTLP endpoint is configured) the tracer is
 * the API's no-op one, so a span here costs a no-op object and nothing is recorded or sent.
 */
export const tracer = trace.getTracer('walletd');

let on = false;
/** Called by `serve` once it registered a provider: the dispatcher then reads events' trace contexts. */
export function setTracingOn(value: boolean): void {
  on = value;
}
export const tracingOn = (): boolean => on;

export interface SpanOptions {
  attributes?: Attributes;
  links?: Link[];
  kind?: SpanKind;
  /** The parent; the active context by default. */
  parent?: Context;
}

/** Runs `fn` in a new active span; a throw marks the span an error and ends it, then passes on. */
export async function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const { parent, ...rest } = options;
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, ...rest }, parent ?? context.active(), async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message?.slice(0, 200) });
      throw err;
    } finally {
      span.end();
    }
  });
}

// The W3C Trace Context format (`traceparent`) as OpenTelemetry's own propagator writes and reads
// it. Loaded on first use: with traces off nothing of OpenTelemetry but the API is loaded.
let propagator: TextMapPropagator | undefined;
const w3c = (): TextMapPropagator => {
  propagator ??= new (require('@opentelemetry/core') as typeof import('@opentelemetry/core')).W3CTraceContextPropagator();
  return propagator;
};

/** The W3C `traceparent` of the active span, to store with what it wrote; null when none records. */
export function activeTraceparent(): string | null {
  if (!trace.getActiveSpan()?.isRecording()) return null;
  const carrier: Record<string, string> = {};
  w3c().inject(context.active(), carrier, defaultTextMapSetter);
  return carrier.traceparent ?? null;
}

/** The context whose parent is the stored span (a delivery attempt continues its event's trace). */
export function contextOf(traceparent: string | null | undefined): Context | undefined {
  if (!traceparent) return undefined;
  const extracted = w3c().extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

/** A stored `traceparent` as a remote span context; null for null or anything malformed. */
export function spanContextOf(traceparent: string | null | undefined): SpanContext | null {
  const parent = contextOf(traceparent);
  return (parent && trace.getSpanContext(parent)) ?? null;
}

export { type Link, type SpanContext, SpanKind } from '@opentelemetry/api';
