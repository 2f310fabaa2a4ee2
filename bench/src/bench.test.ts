import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPgliteServer, uniqueName, workerMongoUri } from '@memfade/testing';
import { describe, expect, inject, it } from 'vitest';
import { type DbCostResult, perMemory } from './db-cost.js';
import { markdown, runBench } from './run.js';

/**
 * Every part of `pnpm bench` on the smallest sizes that still compute its figures (a batch night
 * needs BATCH_MIN_CALLS memories, 50): it proves the benchmark runs and its report has every figure,
 * and measures nothing (docs/benchmarks.md has the real runs).
 */
describe('benchmark smoke run (keeps pnpm bench working; no thresholds)', () => {
  it('runs both producers on a small data set and writes the JSON report', async () => {
    const resultsDir = join(tmpdir(), uniqueName('memfade-bench'));
    // A PostgreSQL of its own: PGlite serves its connections one session at a time, and the shared
    // one's other clients (test files running at once) interleaved with the pool's prepared
    // statements once ('unnamed prepared statement does not exist').
    const postgres = await startPgliteServer();
    const { report, file } = await runBench({
      memories: 400,
      users: 10,
      redisUrl: inject('redisUrl'),
      mongodbUri: workerMongoUri(inject('mongoUris')),
      resultsDir,
      ceilingMemories: 20,
      latencyMs: 200,
      concurrencies: [4],
      memoriesPerSlot: 4,
      sequentialMemories: 5,
      scalingSizes: [10],
      vectorScalingSizes: [50, 100],
      pgvectorUrl: postgres.url,
      floorCalls: 20,
      // At least BATCH_MIN_CALLS (50), or the batch night would go sync.
      dbMemories: 50,
      dbUsers: 5,
      dbIdleSampleMs: 200,
      // At least BATCH_MIN_CALLS (50), or the night would go sync.
      batchMemories: 50,
      batchUsers: 5,
      batchWorkers: 2,
      batchIdleSampleMs: 200,
    });
    expect(report.producer.due).toBe(200);
    expect(report.producer.optimized.enqueued).toBe(200);
    expect(report.producer.naive.enqueued).toBe(200);
    expect(JSON.parse(await readFile(file, 'utf8')).producer.memories).toBe(400);
    expect(markdown(report)).toMatch(/\| speedup \| \d+\.\dx/);
    // A night's MongoDB commands, counted where they are sent: the producer's scan, then the jobs'
    // loads and stage writes (sync) or the chunked reads and bulk writes of batches.
    expect(report.dbCost.map((r) => r.mode)).toEqual(['sync', 'batch']);
    for (const r of report.dbCost) {
      expect(r.producer.byKind).toHaveProperty([
        'aggregate memories meta.compressionStage,meta.createdAt:$lte',
      ]);
      expect(r.night.commands).toBeGreaterThan(0);
    }
    const [sync, batch] = report.dbCost as [DbCostResult, DbCostResult];
    expect(sync.night.byKind['find memories memoryId']?.commands).toBe(50);
    expect(perMemory(batch).total).toBeLessThan(perMemory(sync).total);
    expect(markdown(report)).toContain('### MongoDB commands per memory');
    expect(report.endToEnd.ceiling.memories).toBe(20);
    expect(report.endToEnd.sweep[0]).toMatchObject({ concurrency: 4, memories: 16, latencyMs: 200 });
    expect(report.endToEnd.sweep[0]!.perSecond).toBeGreaterThan(0);
    expect(report.endToEnd.sweep[0]!.steadyPerSecond).toBeGreaterThan(0);
    expect(report.endToEnd.ceiling.provider).toBe('anthropic');
    // One collection size for the ceiling and the sweep: 4 warm-up + 20 memories, the sweep filled up to it.
    for (const r of [report.endToEnd.ceiling, report.endToEnd.ceilingOffline, ...report.endToEnd.sweep])
      expect(r.collectionSize).toBe(24);
    expect(report.scaling.map((r) => r.collectionSize)).toEqual([14]);
    // The data set is made so that every memory costs one model call: the C / L bound assumes it.
    expect(report.endToEnd.ceiling.modelCallsPerMemory).toBe(1);
    expect(report.endToEnd.sweep[0]!.modelCallsPerMemory).toBe(1);
    expect(report.endToEnd.ceilingOffline.modelCallsPerMemory).toBe(0);
    expect(report.endToEnd.ceilingOffline).toMatchObject({ provider: 'offline', memories: 20, latencyMs: 0 });
    expect(report.endToEnd.ceilingOffline.cpuMsPerMemory).toBeGreaterThan(0);
    // The worker's own threads, read from /proc: its JavaScript runs on the main one.
    expect(report.endToEnd.ceiling.cpuMsPerMemoryByThread.main).toBeGreaterThan(0);
    expect(markdown(report)).toMatch(/\| 0 \| 4 \| Anthropic SDK \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d \|/);
    expect(markdown(report)).toMatch(/Worker CPU outside the model client at L = 0: \d+\.\d\d ms/);
    const floor = report.endToEnd.floor;
    expect(floor.concurrency).toBe(4);
    for (const ms of [floor.mongoRoundTripMs, floor.modelCallMs, floor.queueJobMs])
      expect(ms).toBeGreaterThan(0);
    expect(floor.perMemoryMs).toBeCloseTo(3 * floor.mongoRoundTripMs + floor.modelCallMs + floor.queueJobMs);
    expect(markdown(report)).toMatch(/Worker CPU floor at C = 4/);
    expect(markdown(report)).toMatch(
      /^\| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d\d \| -?\d+\.\d\d \|$/m,
    );
    expect(report.sequential).toMatchObject({ memories: 5, latencyMs: 200 });
    expect(report.sequential.seconds).toBeGreaterThanOrEqual(1);
    expect(report.scaling.map((r) => r.memories)).toEqual([10]);
    // Every adapter, each size on a fresh table.
    expect(report.vectorScaling.map((r) => `${r.store} ${r.size}`)).toEqual([
      'lancedb 50',
      'lancedb 100',
      'pgvector 50',
      'pgvector 100',
      'mongodb 50',
      'mongodb 100',
    ]);
    for (const r of report.vectorScaling) {
      for (const phase of [r.insert, r.update]) {
        expect(phase).toMatchObject({ records: r.size, batches: Math.ceil(r.size / r.batchSize) });
        for (const value of [phase.msPerRecord, phase.lastTenthMsPerRecord]) expect(value).toBeGreaterThan(0);
        // The table layout is LanceDB's alone.
        if (r.store === 'lancedb') {
          expect(phase.fragments).toBeGreaterThan(0);
          expect(phase.diskMb).toBeGreaterThan(0);
        } else expect(phase.fragments).toBeUndefined();
      }
    }
    expect(markdown(report)).toContain('### Vector store scaling (each store alone');
    for (const store of ['lancedb', 'pgvector', 'mongodb'])
      expect(markdown(report)).toMatch(
        new RegExp(
          `\\| ${store} \\| 100 \\| \\d+\\.\\d{3} \\(\\d+\\.\\d{3}\\) \\| \\d+\\.\\d{3} \\(\\d+\\.\\d{3}\\) \\|`,
        ),
      );
    // The batch night: every memory in a batch, priced three ways from the same usage.
    const night = report.batchNight;
    expect(night).toMatchObject({
      memories: 50,
      users: 5,
      workers: 2,
      requestsInBatches: 50,
      syncRequests: 0,
    });
    expect(night.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(night.cost.cachedSync).toBeLessThan(night.cost.naiveSync);
    expect(night.cost.batch).toBeCloseTo(night.cost.cachedSync / 2, 9);
    // The worker recorded the run's cost at batch prices from the same table.
    expect(night.runCost).toBeCloseTo(night.cost.batch, 9);
    expect(night.batchOverNaive).toBeCloseTo(night.cost.batch / night.cost.naiveSync, 9);
    expect(night.cpuMsPerMemoryByWorker).toHaveLength(2);
    expect(night.cpuMsPerMemory).toBeGreaterThan(0);
    expect(night.cpuMsPerMemoryByThread.main).toBeGreaterThan(0);
    expect(night.idleCpuMsPerSecond).toBeGreaterThanOrEqual(0);
    expect(markdown(report)).toMatch(/building requests and applying results: -?\d+\.\d{3} ms/);
    expect(night.dbCpuMsPerMemory).toBeNull();
    expect(markdown(report)).toMatch(/\| batch, prompt caching \(the run\) \| \$\d+\.\d\d \|/);
    expect(await readFile(file.replace(/\.json$/, '-throughput.svg'), 'utf8')).toContain('<svg');
    await rm(resultsDir, { recursive: true, force: true });
    await postgres.stop();
  }, 600_000); // the whole benchmark on small sizes: about 30 s on 2 quiet cores, minutes on a loaded machine
});
