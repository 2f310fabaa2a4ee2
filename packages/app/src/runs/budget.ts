import {
  type CompressionRequest,
  type Compressor,
  costOf,
  estimateTokens,
  type ModelPrice,
  ZERO_USAGE,
} from '@memfade/core';
import type { RunBudgets } from '@memfade/db';
import type { Logger } from 'pino';

/**
 * A night's budget (NIGHT_BUDGET_USD, NIGHT_BUDGET_TOKENS; docs/design.md invariant 10: no night past its
 * budget). Before each model request (a sync call, or a request added to a batch) its cost is
 * estimated and reserved on the run record in one conditional write; a request whose reservation
 * would pass the budget is not made: its memory stays due, oldest first, for the next night, and
 * the run says "budget reached" with the amounts. Reservations are estimates made before the call
 * (input from the text, output from the stage's target length); what the run spent is counted from
 * the replies as always.
 */
export interface NightBudget {
  /** US dollars per run; 0 = no limit (needs the model in MEMFADE_PRICES). */
  usd: number;
  /** Tokens per run (input + output); 0 = no limit. */
  tokens: number;
}

export const NO_BUDGET: NightBudget = { usd: 0, tokens: 0 };

export const hasBudget = (budget: NightBudget | undefined): budget is NightBudget =>
  Boolean(budget && (budget.usd > 0 || budget.tokens > 0));

/** The request would pass the run's budget: not made, the memory stays due. */
export class BudgetReachedError extends Error {
  constructor(readonly runId: string) {
    super(`run ${runId}: the night's budget is reached; the memory stays due for the next night`);
    this.name = 'BudgetReachedError';
  }
}

/** The instructions and schema around a memory's text, in tokens (the prompt without the memory). */
const PROMPT_OVERHEAD_TOKENS = 600;

/** A model call's estimated tokens and cost: its text and persona in, its target length (at most) out. */
export function estimateCall(
  request: Pick<CompressionRequest, 'text' | 'personality' | 'targetLength' | 'language' | 'draft'>,
  price: ModelPrice | undefined,
  options: { batch?: boolean } = {},
): { usd: number; tokens: number } {
  const inputTokens =
    PROMPT_OVERHEAD_TOKENS + estimateTokens(request.personality) + estimateTokens(request.text);
  // Key points and the emotional fields come with the main text: twice its target, as an upper bound.
  // A V1 call that also writes the V2 draft (docs/design.md §4) writes the draft's target too.
  const chars = request.targetLength.max + (request.draft?.targetLength.max ?? 0);
  const outputTokens = 2 * estimateTokens('字'.repeat(chars)) * (request.language === 'zh' ? 1 : 0.3);
  const usage = { ...ZERO_USAGE, inputTokens, outputTokens: Math.ceil(outputTokens) };
  return { usd: costOf(usage, price, options), tokens: inputTokens + usage.outputTokens };
}

export interface BudgetKeeper {
  /** Reserves the estimate for the run; false (and the run marked "budget reached") when it would pass. */
  reserve(runId: string, estimate: { usd: number; tokens: number }): Promise<boolean>;
}

export function budgetKeeper(runs: RunBudgets, budget: NightBudget, logger?: Logger): BudgetKeeper {
  return {
    async reserve(runId, estimate) {
      if (await runs.reserveBudget(runId, estimate, budget)) return true;
      if (await runs.markBudgetReached(runId, budget))
        logger?.warn(
          { runId, budget },
          `run ${runId}: night budget reached (${describeBudget(budget)}); the memories left stay due for the next night`,
        );
      return false;
    },
  };
}

export function describeBudget(budget: NightBudget): string {
  const parts = [
    ...(budget.usd > 0 ? [`$${budget.usd}`] : []),
    ...(budget.tokens > 0 ? [`${budget.tokens} tokens`] : []),
  ];
  return parts.join(', ') || 'none';
}

/** The compressor with every call reserved on the run's budget first; a refused one throws BudgetReachedError. */
export function withBudget(
  compressor: Compressor,
  runId: string,
  keeper: BudgetKeeper,
  price: ModelPrice | undefined,
): Compressor {
  const reserved = async (request: CompressionRequest) => {
    if (!(await keeper.reserve(runId, estimateCall(request, price)))) throw new BudgetReachedError(runId);
  };
  return {
    name: compressor.name,
    compressV1: async (request) => {
      await reserved(request);
      return compressor.compressV1(request);
    },
    compressV2: async (request) => {
      await reserved(request);
      return compressor.compressV2(request);
    },
  };
}
