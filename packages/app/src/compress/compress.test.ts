import type { MemoryStore } from '@memfade/core';
import { type CompressPayload, classifyFailure, MONGO_AWAY_FAILURE } from '@memfade/queue';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { MemoryEnd } from '../runs/outcome.js';
import { type CompressDeps, processCompress } from './compress.js';

/** What the driver throws while no MongoDB server answers (isMongoUnreachable reads the name). */
const mongoAway = () =>
  Object.assign(new Error('Server selection timed out after 1000 ms'), { name: 'MongoServerSelectionError' });

/** A compress job at its attempt `attempt` of 5. */
const jobAt = (attempt: number) =>
  ({
    data: { runId: 'r', memoryId: 'm', target: 'v1' },
    attemptsMade: attempt - 1,
    opts: { attempts: 5 },
    updateData: async () => undefined,
  }) as unknown as Job<CompressPayload>;

/**
 * A memory the product deleted: the pipeline ends well at once (a no-op), and the job counts its
 * end through `memoryEnded`.
 */
function deps(memoryEnded: (runId: string, end: MemoryEnd) => Promise<void>): CompressDeps {
  const store: MemoryStore = {
    loadMemory: async () => null,
    loadRoleCard: async () => null,
    applyTransition: async () => false,
    discardStaleStages: async () => false,
    recordError: async () => undefined,
  };
  return {
    store,
    compressor: { name: 'unused' } as CompressDeps['compressor'],
    tracker: { memoryEnded, spent: async () => undefined, unanswered: async () => undefined } as never,
    policy: {} as CompressDeps['policy'],
    now: () => new Date(),
  };
}

describe('a compress job whose work ended but whose end could not be counted (MongoDB away)', () => {
  it('at its last attempt, fails saying MongoDB was away: the run tracker counts it once MongoDB is back', async () => {
    // Before, the job failed for good with the driver's message: neither the run tracker's sweep
    // (it counts stalled and MongoDB-away failures) nor the job had counted it or recorded a reason,
    // so the run said one failed job fewer than BullMQ held, and the next run did not replace it.
    const failure = await processCompress(
      jobAt(5),
      deps(async () => {
        throw mongoAway();
      }),
    ).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(`${MONGO_AWAY_FAILURE}Server selection timed out after 1000 ms`);
    expect(classifyFailure((failure as Error).message).kind).toBe('mongo-away');
  });

  it('at an earlier attempt, fails as it was: its retry counts it', async () => {
    const away = mongoAway();
    await expect(
      processCompress(
        jobAt(4),
        deps(async () => {
          throw away;
        }),
      ),
    ).rejects.toBe(away);
  });

  it('counted, ends well', async () => {
    const ends: MemoryEnd[] = [];
    const outcome = await processCompress(
      jobAt(5),
      deps(async (_, end) => {
        ends.push(end);
      }),
    );
    expect(outcome).toEqual({ kind: 'noop', reason: 'gone' });
    expect(ends).toEqual([{ target: 'v1', memoryId: 'm', outcome: 'noop', transitions: undefined }]);
  });
});
