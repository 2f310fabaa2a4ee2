import type { Redis } from 'ioredis';

/**
 * Lets each job count in its run at most once. A job can run again after it did its work and
 * counted it: its worker died, or lost Redis, before BullMQ marked it completed. Counted twice,
 * the run's `processed` would reach `enqueued` while jobs are still in flight and finish the run
 * early. Claiming a job's accounting first makes it at most once; a crash between the claim and
 * the counters leaves them short instead, which is safe: the idle-queue watchdog finishes such a
 * run, and finishing settles the stage counts from the memories.
 */
export interface AccountingClaims {
  /** True only the first time it is asked for this job of this run. */
  claim(runId: string, jobId: string): Promise<boolean>;
  /** Forgets a finished run's claims. */
  release(runId: string): Promise<void>;
}

/** Long enough for any run to finish; refreshed by every claim, dropped when the run finishes. */
const CLAIMS_TTL_S = 3 * 24 * 60 * 60;

/** One Redis set per run, holding the ids of the jobs already counted. */
export function redisAccountingClaims(redis: Redis, prefix: string): AccountingClaims {
  const key = (runId: string) => `${prefix}:accounted:${runId}`;
  return {
    claim: async (runId, jobId) => {
      // One round trip without MULTI: the claim is the SADD alone; the TTL only cleans up after a
      // run that never finished, and the next claim sets it again.
      const [added] = (await redis
        .pipeline()
        .sadd(key(runId), jobId)
        .expire(key(runId), CLAIMS_TTL_S)
        .exec()) as [[Error | null, number]];
      if (added[0]) throw added[0];
      return added[1] === 1;
    },
    release: async (runId) => {
      await redis.del(key(runId));
    },
  };
}
