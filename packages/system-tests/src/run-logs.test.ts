import { Writable } from 'node:stream';
import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { insertMemories } from '@memfade/db';
import { createLogger, MEMFADE_VERSION } from '@memfade/runtime';
import { generateDemoData } from '@memfade/samples';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatedAnthropic, type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
/** Text only the provider's error body carries: it must never reach a log line. */
const BODY_MARKER = 'Zk7-provider-body-marker';

type Line = Record<string, any>;

describe('the log of a night, as an on-call engineer reads it', () => {
  let harness: Harness;
  let emulator: LlmEmulator;
  let runId: string;
  const raw: string[] = [];
  let lines: Line[];

  beforeAll(async () => {
    emulator = await startLlmEmulator();
    const destination = new Writable({
      write(chunk, _encoding, done) {
        raw.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    harness = await startHarness({
      now: NOW,
      logger: createLogger({ level: 'info', service: 'memfade-worker', destination }),
      config: {
        provider: emulatedAnthropic(emulator),
        concurrency: 1,
      },
    });
    const data = generateDemoData({ now: NOW, users: 1 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    // The first model call fails with a 500 whose body carries the marker; its job is retried.
    emulator.inject({ kind: 'status', status: 500, message: `overloaded upstream ${BODY_MARKER}` });
    const workers = startWorkerRole(harness.services);
    runId = await enqueueRun(harness.services, { trigger: 'schedule', asOf: NOW });
    await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
    await workers.close();
    lines = raw.map((line) => JSON.parse(line));
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
    await emulator?.close();
  });

  it('puts the service, its version and an ISO time on every line', () => {
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      expect(line).toMatchObject({ service: 'memfade-worker', version: MEMFADE_VERSION });
      expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it("logs the run's start and finish with its id and counts", async () => {
    const run = (await harness.services.runs.get(runId))!;
    expect(lines.find((l) => l.msg.startsWith(`run ${runId} started`))).toMatchObject({
      runId,
      trigger: 'schedule',
    });
    const { selected, enqueued } = run.counts;
    expect(lines.find((l) => l.msg.startsWith(`run ${runId} enqueued`))).toMatchObject({
      runId,
      selected,
      enqueued,
      // Memories, not jobs: in batch mode the run records requests, and no job stands for each.
      msg: `run ${runId} enqueued ${enqueued} of ${selected} due memories`,
    });
    const finished = lines.filter((l) => l.msg.startsWith(`run ${runId} finished`));
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      runId,
      counts: { processed: enqueued, failed: 0 },
      msg: `run ${runId} finished: ${enqueued} of ${enqueued} memories, 0 failed`,
    });
    expect(run.counts.enqueued).toBeGreaterThan(0);
  });

  it('logs the retried job with its run, memory and status, never the provider body', () => {
    const failed = lines.filter((l) => l.msg === 'job failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      queue: 'compress',
      job: expect.stringMatching(/^compress-v[12]$/),
      runId,
      memoryId: expect.stringMatching(/^demo-/),
      attempt: 1,
      err: { status: 500, message: 'anthropic: server error (500): api_error' },
    });
    expect(raw.join('\n')).not.toContain(BODY_MARKER);
  });
});
