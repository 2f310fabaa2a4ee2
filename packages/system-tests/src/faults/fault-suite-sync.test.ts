import { setTimeout as sleep } from 'node:timers/promises';
import { nightlyRunId } from '@memfade/app';
import { type Memory, stageDueAt, type Turn } from '@memfade/core';
import { enqueueNightlyRun } from '@memfade/queue';
import { startRedisServer } from '@memfade/runtime';
import { type Fault, startTcpProxy, tempDir, until, workerMongoUri } from '@memfade/testing';
import { describe, expect, inject, it } from 'vitest';
import { DISTINCT } from './batch-rows.js';
import { syncMoney } from './fault-checks.js';
import { faultTable, LATENCY, midRun } from './fault-table.js';

/** The price the budget rows give the emulated model (MEMFADE_PRICES), in $ per million tokens. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
/** A night budget a few stages at their ceiling fill, far below the night's 192 due memories. */
const BUDGET = { tokens: 60_000, usd: 0.4 };

/**
 * Faults by each stage's calls in order (the first, its retry or repair, a retried job's calls),
 * told apart by the memory the call sends (a DISTINCT seed makes each memory's text its own).
 */
function perStage(decide: (call: number) => Fault | undefined) {
  const calls = new Map<string, number>();
  return ({ api, body }: { api: string; body: { messages?: unknown[] } }) => {
    if (api === 'embeddings' || !body.messages) return undefined;
    const key = JSON.stringify(body.messages[api === 'chat' ? 1 : 0]);
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    return decide(n);
  };
}

const TRUNCATE: Fault = { kind: 'truncate' };
const TOO_LONG: Fault = { kind: 'too-long' };
const FAILED: Fault = { kind: 'status', status: 500 };

/**
 * The money rows' workers: a call memfade gave up on (its client timed out, its job's lock lapsed
 * and the job ran again elsewhere) is billed with a reply nobody reads. On this shared machine a
 * worker's event loop can stall past the suite's 3 s model timeout and 2 s lock: these rows count
 * money, not stalls (the rows above inject those).
 */
const UNHURRIED = { MODEL_TIMEOUT_MS: '30000', JOB_LOCK_MS: '10000' };

/**
 * The promise of docs/design.md §5, tested the hard way, with compress jobs (the batch-mode rows
 * are fault-suite.test.ts): a nightly run over a few hundred memories through worker processes
 * started from the built binary, on real Redis and a real MongoDB-wire server, with one fault
 * injected per test. Each test ends with a full audit of every memory.
 */

describe('fault suite (compress jobs): nothing lost, nothing applied twice', () => {
  const { cleanups, record, rig } = faultTable('fault-suite-sync');

  it('kill -9 of a worker mid-run: the other worker takes over its stalled jobs', async () => {
    const r = await rig();
    r.emulator.setRule(() => LATENCY);
    const [doomed] = [r.startWorker(), r.startWorker()];
    const runId = await r.runNight();
    await midRun(r);
    doomed!.child.kill('SIGKILL');
    await doomed!.exited;
    const runs = await r.settle([runId]);
    // Proof that the kill hit jobs in flight: some completed jobs were taken back from the dead worker.
    expect(failed).toBeGreaterThan(100);
    record(`first reply ${name}`, await r.audit(runs), failed, syncMoney(r.emulator, runs, PRICE));
  });
});
