import { startWorkerRole } from '@memfade/app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * A worker stopped while it starts (a deploy rolled back at once, a SIGTERM during start-up):
 * BullMQ closing a blocking connection still being made rejects its start-up commands with no one
 * to catch them ("Connection is closed"), and an unhandled rejection ends a Node process with exit
 * code 1, not the 143 of a clean stop.
 */
describe('the worker role closed while it starts', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: new Date() });
  });
  afterAll(async () => harness?.close());

  it('closes without an unhandled rejection, however soon after its start', async () => {
    const unhandled: unknown[] = [];
    const collect = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', collect);
    try {
      // The moment that fails moves with the machine's load: close at many moments of the start.
      for (let waitMs = 0; waitMs <= 40; waitMs += 2) {
        const role = startWorkerRole(harness.services);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        await role.close();
      }
      // Rejections of the last close surface on a later turn of the event loop.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      process.off('unhandledRejection', collect);
    }
    expect(unhandled.map(String)).toEqual([]);
  });
});
