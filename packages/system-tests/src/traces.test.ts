import {
  ATTR,
  enqueueRun,
  SPAN,
  startTracing,
  startWorkerRole,
  type Tracing,
  waitForRun,
} from '@memfade/app';
import { insertMemories } from '@memfade/db';
import { QUEUES } from '@memfade/queue';
import { generateDemoData } from '@memfade/samples';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
/** Text only the provider's error body carries: it must reach no span. */
const BODY_MARKER = 'Zk7-trace-body-marker';

/** Every text of a document: string leaves that are words, not ids, hashes, names of models or dates. */
function texts(value: unknown, key = ''): string[] {
  if (typeof value === 'string')
    return value.length >= 12 && /\s|\p{Script=Han}/u.test(value) && !/id$|hash|model|version/i.test(key)
      ? [value]
      : [];
  if (Array.isArray(value)) return value.flatMap((v) => texts(v, key));
  if (value && typeof value === 'object' && !(value instanceof Date))
    return Object.entries(value).flatMap(([k, v]) => texts(v, k));
  return [];
}

/** Pieces of a text that a span quoting any part of it would hold: 12 code points (6 for Chinese) every 6. */
function pieces(text: string): string[] {
  const chars = [...text];
  const size = /\p{Script=Han}/u.test(text) ? 6 : 12;
  const out: string[] = [];
  for (let i = 0; i + size <= chars.length; i += 6) out.push(chars.slice(i, i + size).join(''));
  return out.length ? out : [text];
}

/** Everything a span carries as text: its name, attributes, events, links and status. */
const dump = (span: ReadableSpan) =>
  JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })),
    links: span.links.map((l) => l.attributes ?? {}),
    status: span.status,
    resource: span.resource.attributes,
  });

describe('OpenTelemetry traces of a night (in-memory exporter)', () => {
  let harness: Harness;
  let emulator: LlmEmulator;
  let tracing: Tracing | undefined;
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  let runId: string;
  let spans: ReadableSpan[];

  beforeAll(async () => {
    // Before the harness: its queues and the workers take BullMQ's telemetry when they are made.
    tracing = await startTracing({ spanProcessors: [processor] });
    emulator = await startLlmEmulator();
    harness = await startHarness({
      now: NOW,
      config: { provider: emulatedAnthropic(emulator), concurrency: 2 },
    });
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    // The first model call fails with a body holding the marker; its job is retried and succeeds.
    emulator.inject({ kind: 'status', status: 500, message: `overloaded upstream ${BODY_MARKER}` });
    const workers = startWorkerRole(harness.services);
    runId = await enqueueRun(harness.services, { trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
    // Closing drains the vector outbox (the drain's span is the last one).
    await workers.close();
    // Each span is exported as it ends, asynchronously: the last ones are in once the exports settle.
    await processor.forceFlush();
    spans = exporter.getFinishedSpans();
  }, 90_000);

  afterAll(async () => {
    await tracing?.shutdown();
    await harness?.close();
    await emulator?.close();
  });

  const byId = () => new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const parentOf = (span: ReadableSpan) => byId().get(span.parentSpanContext?.spanId ?? '');
  const ancestors = (span: ReadableSpan): ReadableSpan[] => {
    const up = parentOf(span);
    return up ? [up, ...ancestors(up)] : [];
  };
  const jobSpans = (queue: string) =>
    spans.filter((s) => s.kind === SpanKind.CONSUMER && s.attributes['bullmq.queue.name'] === queue);

  it('has a night span and every compress job under it, across the queue', () => {
    const nights = jobSpans(QUEUES.nightly.name);
    expect(nights).toHaveLength(1);
    const night = nights[0]!;
    expect(night.attributes).toMatchObject({ [ATTR.runId]: runId, [ATTR.outcome]: 'done' });
    const run = jobSpans(QUEUES.compress.name);
    expect(run.length).toBeGreaterThanOrEqual(night.attributes['memfade.run.enqueued'] as number);
    expect(night.attributes['memfade.run.enqueued']).toBeGreaterThan(0);
    for (const job of run) {
      expect(job.spanContext().traceId).toBe(night.spanContext().traceId);
      // The job's span continues the producer's add (a producer span the night made).
      const add = parentOf(job)!;
      expect(add.kind).toBe(SpanKind.PRODUCER);
      expect(ancestors(job)).toContain(night);
      expect(job.attributes).toMatchObject({ [ATTR.runId]: runId, [ATTR.memoryId]: expect.any(String) });
      expect(job.attributes[ATTR.stage]).toMatch(/^v[12]$/);
    }
  });

  it('puts the model call and the stage write under each job that advanced a memory', () => {
    const advanced = jobSpans(QUEUES.compress.name).filter((s) => s.attributes[ATTR.outcome] === 'advanced');
    expect(advanced.length).toBeGreaterThan(3);
    let called = 0;
    for (const job of advanced) {
      const children = spans.filter((s) => s.parentSpanContext?.spanId === job.spanContext().spanId);
      const memoryId = job.attributes[ATTR.memoryId];
      const writes = children.filter((s) => s.name === SPAN.stageWrite);
      expect(writes.map((w) => w.attributes[ATTR.outcome])).toContain('written');
      for (const write of writes)
        expect(write.attributes).toMatchObject({
          [ATTR.memoryId]: memoryId,
          [ATTR.stage]: expect.any(String),
        });
      // A stage too short to compress is written without a call (and V2 from V1's draft likewise).
      const calls = children.filter((s) => s.name === SPAN.modelCall);
      if (writes.some((w) => w.attributes[ATTR.skipped] === false)) expect(calls.length).toBeGreaterThan(0);
      else expect(calls).toEqual([]);
      for (const call of calls)
        expect(call.attributes).toMatchObject({
          [ATTR.memoryId]: memoryId,
          [ATTR.model]: 'emulated',
          [ATTR.outcome]: 'ok',
          [ATTR.inputTokens]: expect.any(Number),
        });
      called += calls.filter((c) => (c.attributes[ATTR.outputTokens] as number) > 0).length;
    }
    expect(called).toBeGreaterThan(3);
  });

  it('links every advancing job from the vector sync that synced its memory', () => {
    const syncs = spans.filter((s) => s.name === SPAN.vectorSync);
    expect(syncs.length).toBeGreaterThan(0);
    for (const job of jobSpans(QUEUES.compress.name).filter(
      (s) => s.attributes[ATTR.outcome] === 'advanced',
    )) {
      const sync = syncs.find((s) => s.links.some((l) => l.context.spanId === job.spanContext().spanId));
      expect(sync, `no vector sync links ${job.attributes[ATTR.memoryId]}`).toBeDefined();
      expect(sync!.attributes[ATTR.memoryIds]).toContain(job.attributes[ATTR.memoryId]);
    }
  });

  it('records the failed attempt by its error name, without the provider body', () => {
    const failed = spans.filter((s) => s.name === SPAN.modelCall && s.attributes[ATTR.outcome] === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.attributes[ATTR.error]).toEqual(expect.any(String));
    const job = parentOf(failed[0]!)!;
    expect(job.attributes).toMatchObject({ [ATTR.outcome]: 'failed' });
    expect(spans.map(dump).join('\n')).not.toContain(BODY_MARKER);
  });

  it('carries no memory text, role card text or stage text in any span', async () => {
    const { models } = harness.services;
    const memories = await models.memories.collection.find({}).toArray();
    const cards = await models.roleCards.collection.find({}).toArray();
    const all = [...texts(memories), ...texts(cards)];
    // The night wrote stages: their text is among what is looked for.
    expect(texts(memories).length).toBeGreaterThan(memories.length * 2);
    // Not vacuous: the night's spans are all here (a night, its adds, jobs, calls, writes, syncs).
    expect(spans.length).toBeGreaterThan(30);
    const carried = spans.map(dump).join('\n');
    const leaks = all.flatMap(pieces).filter((piece) => carried.includes(piece));
    expect(leaks).toEqual([]);
  });
});
