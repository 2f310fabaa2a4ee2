import type { BatchRepository, RunRepository } from '@memfade/db';
import { enqueueBatchPoll, enqueueBatchSubmit, type MemfadeQueues } from '@memfade/queue';
import type { Logger } from 'pino';
import { paidOf } from '../runs/outcome.js';
import type { RecoveryOutcome } from '../runs/run-tracker.js';

/**
 * Batch mode's answer to a run whose submit and poll jobs have all ended while some of its requests
 * still have no outcome (docs/design.md invariant 9): a poll job that stalled past BullMQ's limit (workers
 * killed while applying), failed every attempt, or was lost with Redis's data. The records in
 * MongoDB say what is left, so the run tracker, before it finishes an idle run, asks here: the
 * run's batch jobs are started again from the first round with a request left (a new chain of
 * jobs, `resume` in their ids). After BATCH_MAX_RESUMES resumes in a row that settled nothing, the
 * run gives its remaining requests up (`interrupted`) and finishes interrupted with them counted
 * unprocessed: their memories are due again the next night. Its batches the provider still holds
 * are drained: canceled, and the lines they bill all the same counted on the run, never applied.
 */
export interface BatchRecoveryDeps {
  batches: BatchRepository;
  runs: RunRepository;
  queues: MemfadeQueues;
  maxResumes: number;
  logger?: Logger;
}

export class BatchRecovery {
  constructor(private readonly deps: BatchRecoveryDeps) {}

  /**
   * Gives up every request of the run still without an outcome: its producer died before it had
   * recorded them all, so no batch job was ever started for them (docs/design.md invariant 12).
   */
  async giveUp(runId: string): Promise<Extract<RecoveryOutcome, { resumed: false }>> {
    const records = await this.deps.batches.interrupt(runId);
    const spent = records.flatMap(paidOf);
    return { resumed: false, givenUp: records.length, spent };
  }

  /** Resumes the run's batch jobs when requests are left; else says what it gave up (0: none left). */
  async resumeOrGiveUp(runId: string): Promise<RecoveryOutcome> {
    const { batches, runs, queues, logger } = this.deps;
    const live = await batches.live(runId);
    if (live.count === 0 || live.round === undefined) return { resumed: false, givenUp: 0, spent: [] };
    const { resume, stuck } = await runs.noteBatchResume(runId, live.count);
    if (stuck >= this.deps.maxResumes) {
      const records = await batches.interrupt(runId);
      // What their earlier rounds applied or threw away was paid for: counted in the run all the same.
      const spent = records.flatMap(paidOf);
      const givenUp = records.length;
      // Batches still at the provider bill their lines whether or not anyone reads them: a drain
      // chain per round cancels them and counts what comes (batch-poll.ts, invariant 9).
      const unread = await batches.roundsUnread(runId);
      for (const round of unread)
        await enqueueBatchPoll(queues, { runId, round, poll: 0, resume, drain: true }, 0);
      logger?.error(
        { runId, givenUp, resumes: resume - 1, roundsDrained: unread },
        `run ${runId}: ${givenUp} batch requests still without an outcome after ${stuck} resumes that settled none; given up, their memories are due again the next night${unread.length ? `; its batches still at the provider are canceled and their lines counted as they come` : ''}`,
      );
      return { resumed: false, givenUp, spent };
    }
    const { round } = live;
    // A round not submitted yet follows its previous round's poll (which applies the deadline);
    // round 0, or a round whose submit died halfway, gets its submit job again.
    const notStarted = live.unsubmitted && round > 0 && (await batches.batches(runId, round)).length === 0;
    if (!live.unsubmitted) await enqueueBatchPoll(queues, { runId, round, poll: 0, resume }, 0);
    else if (notStarted) await enqueueBatchPoll(queues, { runId, round: round - 1, poll: 0, resume }, 0);
    else await enqueueBatchSubmit(queues, { runId, round, resume });
    logger?.warn(
      { runId, round, requests: live.count, resume },
      `run ${runId}: its batch jobs ended with ${live.count} requests still without an outcome; resumed from round ${round}`,
    );
    return { resumed: true };
  }
}
