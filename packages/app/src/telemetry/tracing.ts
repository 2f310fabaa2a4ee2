/**
 * OpenTelemetry traces (docs/operations.md "Traces"): the one place that starts the SDK and hands
 * BullMQ its telemetry. Off unless the standard OTLP variables name an endpoint: then no SDK is
 * started, BullMQ gets no telemetry and the spans of spans.ts are never made, so a worker without a
 * collector pays nothing (docs/design.md §10: one place per concept).
 */
import type * as OtelApi from '@opentelemetry/api';
import type { NodeSDK, NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import type { Span as QueueSpan, Telemetry } from 'bullmq';

/** The tracer and service name memfade's spans and BullMQ's carry unless OTEL_SERVICE_NAME says otherwise. */
export const TRACER_NAME = 'memfade';

/** Whether traces are on, and the service name they carry (setup/config.ts reads both from the environment). */
export interface TracesConfig {
  enabled: boolean;
  serviceName: string;
}

export interface Tracing {
  /** Exports what is still buffered and unregisters the SDK from the API (spans become no-ops again). */
  shutdown(): Promise<void>;
}

let started: { sdk: NodeSDK; queue: Telemetry } | undefined;

/** The OpenTelemetry API, loaded by the first startTracing and kept after its shutdown (spans.ts). */
let api: typeof OtelApi | undefined;

/** The API for spans.ts, which calls it only while tracing is on (or after it was). */
export const otelApi = (): typeof OtelApi => {
  if (!api) throw new Error('tracing was never started in this process');
  return api;
};

/** Whether traces are on in this process: spans.ts makes spans only then. */
export const tracingOn = (): boolean => started !== undefined;

/**
 * Starts the SDK when the configuration says traces are on (an OTLP endpoint set, OTEL_SDK_DISABLED
 * not true: config.ts); the exporter, its protocol, headers, sampler and resource come from the
 * standard OTEL_* variables, which the SDK reads. `spanProcessors` replaces the exporter and starts
 * tracing whatever the configuration says (tests: an in-memory exporter). Traces only: memfade's
 * metrics are Prometheus's (/metrics) and its logs pino's. Call before the queues and workers open.
 *
 * The SDK and BullMQ's adapter are imported here, only when traces are on: the SDK and its exporters
 * and the API are about 600 modules, which every process (each CLI command, each worker) loaded at start before.
 */
export async function startTracing(options: {
  traces?: TracesConfig;
  spanProcessors?: NodeSDKConfiguration['spanProcessors'];
}): Promise<Tracing | undefined> {
  if (!options.spanProcessors && !options.traces?.enabled) return undefined;
  if (started) throw new Error('tracing is already started in this process');
  const [loaded, { NodeSDK }, { BullMQOtel }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-node'),
    import('bullmq-otel'),
  ]);
  api = loaded;
  if (started) throw new Error('tracing is already started in this process');
  const sdk = new NodeSDK({
    serviceName: options.traces?.serviceName ?? TRACER_NAME,
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors && { spanProcessors: options.spanProcessors }),
  });
  sdk.start();
  started = { sdk, queue: scrubbed(new BullMQOtel(TRACER_NAME)) };
  return {
    shutdown: async () => {
      if (started?.sdk !== sdk) return;
      started = undefined;
      await sdk.shutdown();
      loaded.trace.disable();
      loaded.context.disable();
      loaded.propagation.disable();
    },
  };
}

/**
 * BullMQ's telemetry for a Queue or Worker (its `telemetry` option): undefined while tracing is off.
 * With it, an add is a producer span whose context travels in the job, and each job is processed
 * under a consumer span that is its child: a night's trace holds its compress and batch jobs.
 */
export const queueTelemetry = (): Telemetry | undefined => started?.queue;

/**
 * BullMQ's own spans, only those a night's trace needs and without what may quote a memory. Kept:
 * the adds (producer spans, whose context travels in the job) and each job's processing (the
 * consumer span); left out: its internal operations (complete, delay, the stalled-job checks...),
 * which would double the spans per memory and the worker's cost of tracing (docs/operations.md,
 * "Traces": at most 5 % more CPU per memory). Dropped from what is kept: the job's return value (a
 * stage's warnings can name the facts it missed) and error messages (a retention refusal names
 * them too). The job span keeps the outcome and the error's name; memfade's attributes say the rest.
 */
function scrubbed(inner: Telemetry): Telemetry {
  return {
    contextManager: inner.contextManager,
    tracer: {
      startSpan: (...args: Parameters<Telemetry['tracer']['startSpan']>) =>
        KEPT_OPERATIONS.has(args[0].split(' ')[0]!) ? scrubbedSpan(inner.tracer.startSpan(...args)) : NO_SPAN,
    },
  };
}

/** BullMQ's operations that get a span (its span names are `<operation> <queue>[.<job name>]`). */
const KEPT_OPERATIONS = new Set(['add', 'addBulk', 'process']);

/** What an operation left out gets: the context it runs in stays the caller's. */
const NO_SPAN: QueueSpan = {
  setSpanOnContext: (ctx) => ctx,
  setAttribute: () => undefined,
  setAttributes: () => undefined,
  addEvent: () => undefined,
  recordException: () => undefined,
  end: () => undefined,
};

const KEPT_EVENT_ATTRIBUTES =
  /^bullmq\.job\.(id|name|attempts|attempt_finished_timestamp|finished\.timestamp)/;

function scrubbedSpan(span: QueueSpan): QueueSpan {
  return {
    setSpanOnContext: (ctx) => span.setSpanOnContext(ctx),
    setAttribute: (key, value) => span.setAttribute(key, value),
    setAttributes: (attributes) => span.setAttributes(attributes),
    addEvent: (name, attributes) =>
      span.addEvent(
        name,
        Object.fromEntries(
          Object.entries(attributes ?? {}).filter(([key]) => KEPT_EVENT_ATTRIBUTES.test(key)),
        ),
      ),
    recordException: (exception, time) => span.recordException({ name: errorName(exception) }, time),
    end: () => span.end(),
  };
}

/** An error's class name, never its message. */
export function errorName(error: unknown): string {
  if (error && typeof error === 'object' && 'name' in error && typeof error.name === 'string')
    return error.name;
  return 'Error';
}
