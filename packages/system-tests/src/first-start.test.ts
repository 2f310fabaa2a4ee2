import { startSchedulerRole } from '@memfade/app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * docs/design.md invariant 10: no catch-up night on a database memfade has never run on. A worker started
 * at 05:30, after the 03:00 fire time, on a database with no scheduled night yet enqueues nothing
 * (CATCH_UP=after-first-run, the default); once a scheduled night has run there, it catches up.
 */
describe('first start on a fresh database (CATCH_UP=after-first-run)', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: new Date('2026-11-22T05:30:00Z') });
  });
  afterAll(async () => harness.close());

  const nightlyJobs = async () => (await harness.services.queues.nightly.getJobs()).map((job) => job.id);

  it('enqueues no night on a database no scheduled night has run on; a backfill does not count', async () => {
    const { services } = harness;
    await services.runs.start({ runId: 'backfill-first-user', trigger: 'backfill', asOf: new Date() });
    const scheduler = await startSchedulerRole(services);
    await scheduler.stop();
    expect(scheduler.caughtUp).toBeUndefined();
    expect(await nightlyJobs()).toEqual([]);
  });

  it('catches up on the missed night once a scheduled night has run on the database', async () => {
    const { services } = harness;
    await services.runs.start({ runId: 'nightly-2026-11-21', trigger: 'schedule', asOf: new Date() });
    const scheduler = await startSchedulerRole(services);
    await scheduler.stop();
    expect(scheduler.caughtUp?.toISOString()).toBe('2026-11-22T03:00:00.000Z');
    expect(await nightlyJobs()).toEqual(['nightly-2026-11-22']);
  });
});
