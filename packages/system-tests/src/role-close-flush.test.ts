import { startWorkerRole } from '@memfade/app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * A transition schedules the outbox's flush (a drain FLUSH_DELAY_MS, 2 s, later); the worker role's
 * close drains at once. The scheduled flush was left behind and drained after the close: in the
 * erasure suite it wrote a record between a sweep's delete and the test's read of the store.
 */
describe('closing the worker role', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: new Date('2026-11-22T03:00:00Z') });
  });
  afterAll(async () => harness?.close());

  it('calls off the flush its jobs scheduled: nothing drains after it closed', async () => {
    const { vectorSync } = harness.services;
    const workers = startWorkerRole(harness.services);
    vectorSync.notify();
    await workers.close();
    let drains = 0;
    const drainReport = vectorSync.drainReport.bind(vectorSync);
    vectorSync.drainReport = () => {
      drains++;
      return drainReport();
    };
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    vectorSync.drainReport = drainReport;
    expect(drains).toBe(0);
  });
});
