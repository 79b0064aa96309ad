/**
 * Traces are on when an OTLP endpoint is configured (the standard OpenTelemetry variables), and
 * not turned off with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Off, the SDK is
 * never loaded: the spans walletd makes are the API's no-op ones.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}
