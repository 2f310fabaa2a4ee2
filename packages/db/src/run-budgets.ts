import type { Models } from './models.js';
import { UserCosts } from './user-costs.js';

/**
 * A run's night budget as stored on its record (`budget`; queue/budget.ts decides what to reserve):
 * reservations are conditional writes on the run document, so workers reserving at once never pass
 * the limit together.
 */
export class RunBudgets {
  /** USER_NIGHT_BUDGET_USD: each user's reservations, on the user's ledger document of the run. */
  readonly users: Pick<UserCosts, 'reserve' | 'settle' | 'markReached'>;
  constructor(private readonly models: Models) {
    this.users = new UserCosts(models);
  }

  /**
   * Reserves a model request's estimated cost and tokens on the run, unless that would pass a limit
   * (0 = none): one conditional write, so workers reserving at once never pass it together.
   */
  async reserveBudget(
    runId: string,
    estimate: { usd: number; tokens: number },
    limits: { usd: number; tokens: number },
  ): Promise<boolean> {
    const within = (field: 'usd' | 'tokens') => {
      const limit = limits[field];
      if (limit <= 0) return [];
      return [
        {
          $or: [
            { [`budget.${field}`]: { $exists: false } },
            { [`budget.${field}`]: { $lte: limit - estimate[field] } },
          ],
        },
      ];
    };
    if (
      (limits.usd > 0 && estimate.usd > limits.usd) ||
      (limits.tokens > 0 && estimate.tokens > limits.tokens)
    )
      return false;
    const conditions = [...within('usd'), ...within('tokens')];
    const result = await this.models.runs.collection.updateOne(
      { runId, ...(conditions.length && { $and: conditions }) },
      { $inc: { 'budget.usd': estimate.usd, 'budget.tokens': estimate.tokens } },
    );
    return result.matchedCount === 1;
  }

  /**
   * Changes a run's reserved amounts by `change`: what a stage was billed less what it reserved
   * (negative, unless a tokenizer counted past the ceiling). Unconditional: the calls are made.
   */
  async settleBudget(runId: string, change: { usd: number; tokens: number }): Promise<void> {
    if (change.usd === 0 && change.tokens === 0) return;
    await this.models.runs.collection.updateOne(
      { runId },
      { $inc: { 'budget.usd': change.usd, 'budget.tokens': change.tokens } },
    );
  }

  /** Counts a memory left due by the budget; true the first time (the run says so once). */
  async markBudgetReached(runId: string, limits: { usd: number; tokens: number }): Promise<boolean> {
    await this.models.runs.collection.updateOne({ runId }, { $inc: { 'budget.overBudget': 1 } });
    const first = await this.models.runs.collection.updateOne(
      { runId, 'budget.reachedAt': { $exists: false } },
      {
        $set: {
          'budget.reachedAt': new Date(),
          'budget.limitUsd': limits.usd,
          'budget.limitTokens': limits.tokens,
        },
      },
    );
    return first.modifiedCount === 1;
  }
}
