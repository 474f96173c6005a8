/**
 * The OpenTelemetry SDK packages, loaded when the first tracer is made: a gateway without
 * `observability.traces` does not carry them (about 14 MB of RSS). Their CommonJS builds load
 * synchronously; the API package stays a plain import (small, and its context keys are global
 * symbols, so the SDK's copy and ours agree on them).
 */

import { createRequire } from 'node:module';

type Exporter = typeof import('@opentelemetry/exporter-trace-otlp-http');
type Resources = typeof import('@opentelemetry/resources');
type TraceBase = typeof import('@opentelemetry/sdk-trace-base');

export interface OtelSdk {
  OTLPTraceExporter: Exporter['OTLPTraceExporter'];
  defaultResource: Resources['defaultResource'];
  resourceFromAttributes: Resources['resourceFromAttributes'];
  AlwaysOnSampler: TraceBase['AlwaysOnSampler'];
  BasicTracerProvider: TraceBase['BasicTracerProvider'];
  BatchSpanProcessor: TraceBase['BatchSpanProcessor'];
}

const requireCjs = createRequire(import.meta.url);
let sdk: OtelSdk | undefined;

export function otelSdk(): OtelSdk {
  if (!sdk) {
    const exporter = requireCjs('@opentelemetry/exporter-trace-otlp-http') as Exporter;
    const resources = requireCjs('@opentelemetry/resources') as Resources;
    const base = requireCjs('@opentelemetry/sdk-trace-base') as TraceBase;
    sdk = {
      OTLPTraceExporter: exporter.OTLPTraceExporter,
      defaultResource: resources.defaultResource,
      resourceFromAttributes: resources.resourceFromAttributes,
      AlwaysOnSampler: base.AlwaysOnSampler,
      BasicTracerProvider: base.BasicTracerProvider,
      BatchSpanProcessor: base.BatchSpanProcessor,
    };
  }
  return sdk;
}
