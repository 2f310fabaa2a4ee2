import type { Compressor, MemoryStore } from '@memfade/core';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../setup/config.js';
import { envSchema } from '../setup/env-schema.js';
import { tracedCompressor, tracedStore } from './spans.js';
import { queueTelemetry, startTracing, tracingOn } from './tracing.js';

const compressor = { name: 'offline' } as Compressor;
const store = { loadMemory: async () => null } as unknown as MemoryStore;

describe('tracing switch', () => {
  const traces = (env: Record<string, string>) => configFromEnv(envSchema.parse(env)).traces;
  const endpoint = 'http://127.0.0.1:4318';

  it('is off without an OTLP endpoint: no SDK, no BullMQ telemetry, the adapters untouched', async () => {
    expect(traces({})).toEqual({ enabled: false, serviceName: 'memfade' });
    expect(await startTracing({ traces: traces({}) })).toBeUndefined();
    expect(tracingOn()).toBe(false);
    expect(queueTelemetry()).toBeUndefined();
    expect(tracedCompressor(compressor)).toBe(compressor);
    expect(tracedStore(store)).toBe(store);
    // The API's tracer is the no-op one: its spans record nothing.
    expect(trace.getTracer('memfade').startSpan('x').isRecording()).toBe(false);
  });

  it('stays off when OTEL_SDK_DISABLED is true, endpoint or not', () => {
    expect(traces({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
    expect(envSchema.safeParse({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' }).error?.issues[0]?.path).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ]);
  });

  it('starts with OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only one) and stops on shutdown', async () => {
    for (const key of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
      const config = traces({ [key]: endpoint, OTEL_SERVICE_NAME: 'memfade-eu' });
      expect(config).toEqual({ enabled: true, serviceName: 'memfade-eu' });
      const tracing = await startTracing({ traces: config });
      try {
        expect(tracing).toBeDefined();
        expect(tracingOn()).toBe(true);
        expect(queueTelemetry()).toBeDefined();
        expect(tracedStore(store)).not.toBe(store);
        await expect(startTracing({ traces: config })).rejects.toThrow(/already started/);
      } finally {
        await tracing?.shutdown();
      }
      expect(tracingOn()).toBe(false);
      expect(queueTelemetry()).toBeUndefined();
    }
  });

  it("drops what BullMQ's spans could quote of a memory: the job's result and error messages", async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const tracing = await startTracing({ spanProcessors: [processor] });
    const spans: ReturnType<typeof exporter.getFinishedSpans> = [];
    try {
      const span = queueTelemetry()!.tracer.startSpan('process memfade-compress', {
        kind: SpanKind.CONSUMER,
      });
      span.addEvent('job completed', {
        'bullmq.job.id': 'm1.v1',
        'bullmq.job.result': JSON.stringify({ warnings: ['retention: missing Rita, Lisbon'] }),
      });
      span.addEvent('job failed', { 'bullmq.job.failed.reason': 'memory m1: missing Rita, Lisbon' });
      span.recordException(new Error('memory m1: missing Rita, Lisbon'));
      span.end();
    } finally {
      // Exported as it ends, asynchronously; and the exporter forgets its spans on shutdown.
      await processor.forceFlush();
      spans.push(...exporter.getFinishedSpans());
      await tracing?.shutdown();
    }
    const [exported] = spans;
    expect(exported!.events.map((e) => e.name)).toEqual(['job completed', 'job failed', 'exception']);
    expect(exported!.events[0]!.attributes).toEqual({ 'bullmq.job.id': 'm1.v1' });
    expect(exported!.events[2]!.attributes).toMatchObject({ 'exception.type': 'Error' });
    expect(JSON.stringify(exported!.events)).not.toMatch(/Rita|Lisbon/);
  });
});
