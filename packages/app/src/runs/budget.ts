import {
  BudgetReachedError,
  type CallCeiling,
  type CallMeter,
  type CompressionRequest,
  type Compressor,
  costOf,
  type ModelPrice,
  type PriceTable,
  type TargetStage,
  type Usage,
  ZERO_USAGE,
} from '@memfade/core';
import type { RunBudgets } from '@memfade/db';
import type { Logger } from 'pino';
import type { RunTracker } from './run-tracker.js';

/**
 * A night's budget (NIGHT_BUDGET_USD, NIGHT_BUDGET_TOKENS; docs/design.md invariants 10 and 14): a
 * ceiling on what can be billed, not on what is expected. Before a stage's first model call (a
 * sync call, or a request added to a batch) every call the stage may make (the first, its
 * truncation retry, its repair turn) is reserved at what it can cost, its input from the prompt
 * as sent and its max_tokens as output, in one conditional write on the run record; a stage whose
 * reservation would pass the budget is not started: its memory stays due, oldest first, for the
 * next night, and the run says "budget reached" with the amounts. Once its calls are done the
 * reservation is settled to what they were billed, so `budget` holds what was billed plus what is
 * reserved for calls still possible.
 */
export interface NightBudget {
  /** US dollars per run; 0 = no limit (needs the model in MEMFADE_PRICES). */
  usd: number;
  /** Tokens per run (input + output); 0 = no limit. */
  tokens: number;
  /**
   * USER_NIGHT_BUDGET_USD: US dollars per user and run, the same ceiling on each user's memories
   * (reserved on the user's ledger document, docs/design.md §3); 0 or absent = no limit.
   */
  userUsd?: number;
}

export const NO_BUDGET: NightBudget = { usd: 0, tokens: 0 };

export const hasBudget = (budget: NightBudget | undefined): budget is NightBudget =>
  Boolean(budget && (budget.usd > 0 || budget.tokens > 0 || (budget.userUsd ?? 0) > 0));

/** Tokens and dollars on the run's budget. */
export interface Amount {
  usd: number;
  tokens: number;
}

/**
 * What a stage's calls are reserved at (docs/design.md invariant 14): each call at its ceiling, its
 * input at the dearest input price (a cache write costs more than plain input) and its max_tokens
 * at the output price. `batchLine`: the first call is a batch line, at batch prices; the calls after
 * it (its truncation retry, its repair turn) are sync calls.
 */
export function reservationOf(
  ceilings: CallCeiling[],
  price: ModelPrice | undefined,
  options: { batchLine?: boolean } = {},
): Amount {
  let usd = 0;
  let tokens = 0;
  for (const [i, call] of ceilings.entries()) {
    const batch = i === 0 && Boolean(options.batchLine);
    const at = (input: keyof Usage) =>
      costOf({ ...ZERO_USAGE, [input]: call.inputTokens, outputTokens: call.outputTokens }, price, { batch });
    usd += Math.max(at('inputTokens'), at('cacheWriteTokens'), at('cacheReadTokens'));
    tokens += call.inputTokens + call.outputTokens;
  }
  return { usd, tokens };
}

/** What one paid call cost, as the budget counts it (every token billed, cache reads and writes too). */
export function billedAmount(
  usage: Usage,
  price: ModelPrice | undefined,
  options: { batch?: boolean } = {},
): Amount {
  const tokens = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return { usd: costOf(usage, price, options), tokens };
}

export interface BudgetKeeper {
  /**
   * Reserves the amount on the run, and on the memory's owner with a per-user cap; false (and the
   * run marked "budget reached", or the user counted over their cap) when it would pass either.
   */
  reserve(runId: string, amount: Amount, memoryId: string): Promise<boolean>;
  /**
   * Brings a reservation down to what its calls were billed, once they are done (or failed): what
   * was reserved and not spent is free for the night's other stages. Best effort: a reservation
   * left standing only makes the night stop sooner.
   */
  settle(runId: string, reserved: Amount, billed: Amount, memoryId: string): Promise<void>;
}

export function budgetKeeper(runs: RunBudgets, budget: NightBudget, logger?: Logger): BudgetKeeper {
  return {
    async reserve(runId, estimate, memoryId) {
      if (!(await runs.reserveBudget(runId, estimate, budget))) {
        if (await runs.markBudgetReached(runId, budget))
          logger?.warn(
            { runId, budget },
            `run ${runId}: night budget reached (${describeBudget(budget)}); the memories left stay due for the next night`,
          );
        return false;
      }
      const cap = budget.userUsd ?? 0;
      if (cap <= 0 || (await runs.users.reserve(runId, memoryId, estimate.usd, cap))) return true;
      // The user's cap stops it: what the run reserved for it is free again for other users.
      await runs.settleBudget(runId, { usd: -estimate.usd, tokens: -estimate.tokens });
      if (await runs.users.markReached(runId, memoryId, cap))
        logger?.warn(
          { runId, memoryId, userNightBudgetUsd: cap },
          `run ${runId}: the user of memory ${memoryId} reached USER_NIGHT_BUDGET_USD ($${cap}); their memories left stay due for the next night`,
        );
      return false;
    },
    async settle(runId, reserved, billed, memoryId) {
      const change = { usd: billed.usd - reserved.usd, tokens: billed.tokens - reserved.tokens };
      await runs
        .settleBudget(runId, change)
        .then(() => ((budget.userUsd ?? 0) > 0 ? runs.users.settle(runId, memoryId, change.usd) : undefined))
        .catch((err) =>
          logger?.warn({ err, runId }, `run ${runId}: a budget reservation could not be settled`),
        );
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

/**
 * A run's books, as its compressor writes them (compress.ts): each call counted unanswered at its
 * ceiling before it is sent; its reply's billed usage counted when it arrives, and the call no longer
 * unanswered; an error reply no longer unanswered, nothing billed.
 */
export interface RunBooks {
  sending(ceiling: CallCeiling, model: string): Promise<void>;
  paid(stage: TargetStage, usage: Usage, model: string, ceiling: CallCeiling): Promise<void>;
  refused(ceiling: CallCeiling, model: string): Promise<void>;
}

/**
 * A call whose reply has not been counted may have been billed up to its ceiling: the run counts it
 * apart at that amount, and the budget keeps it reserved (docs/design.md invariants 9 and 14).
 */
export function unansweredAmount(ceiling: CallCeiling, price: ModelPrice | undefined): Amount {
  return reservationOf([ceiling], price);
}

const negative = (amount: Amount): Amount => ({ usd: -amount.usd, tokens: -amount.tokens });

/** A run's books on its tracker for one memory (its user's ledger too), each call priced by its model. */
export function runBooks(
  runId: string,
  memoryId: string,
  tracker: Pick<RunTracker, 'spent' | 'unanswered'>,
  prices: PriceTable | undefined,
): RunBooks {
  const change = (ceiling: CallCeiling, model: string, calls: 1 | -1) => {
    const amount = unansweredAmount(ceiling, prices?.[model]);
    return calls === 1 ? { calls, ...amount } : { calls, ...negative(amount) };
  };
  return {
    sending: (ceiling, model) => tracker.unanswered(runId, change(ceiling, model, 1)),
    // The reply's cost and the call no longer unanswered, in one write of the run record.
    paid: (stage, usage, model, ceiling) =>
      tracker.spent(
        runId,
        [{ memoryId, stage, usage, cost: costOf(usage, prices?.[model]) }],
        change(ceiling, model, -1),
      ),
    refused: (ceiling, model) => tracker.unanswered(runId, change(ceiling, model, -1)),
  };
}

/**
 * The meter of one stage's calls: what each was billed, or while unanswered could be, is held in
 * `billed`, at the budget's `price`, for the reservation's settling; the run's books hear of it.
 */
export function stageMeter(
  stage: TargetStage,
  books: RunBooks,
  billed: Amount,
  price: ModelPrice | undefined,
): CallMeter {
  const add = (amount: Amount) => {
    billed.usd += amount.usd;
    billed.tokens += amount.tokens;
  };
  return {
    sending: async (ceiling, model) => {
      add(unansweredAmount(ceiling, price));
      await books.sending(ceiling, model);
    },
    billed: async (usage, model, ceiling) => {
      add(billedAmount(usage, price));
      add(negative(unansweredAmount(ceiling, price)));
      await books.paid(stage, usage, model, ceiling);
    },
    refused: async (ceiling, model) => {
      add(negative(unansweredAmount(ceiling, price)));
      await books.refused(ceiling, model);
    },
  };
}

/**
 * The compressor of one run (docs/design.md invariant 9 and 14): every call it makes is counted on
 * the run as its reply arrives (`books`), whatever happens after it; with a budget, each stage's
 * calls are reserved at their ceiling before the first of them (a stage that would pass it is not
 * started: BudgetReachedError), and the reservation is settled to what they were billed after.
 */
export function runCompressor(
  compressor: Compressor,
  runId: string,
  books: RunBooks,
  budget?: { keeper: BudgetKeeper; price?: ModelPrice },
): Compressor {
  const metered = async <T>(
    stage: TargetStage,
    request: CompressionRequest,
    call: (request: CompressionRequest) => Promise<T>,
  ): Promise<T> => {
    const ceilings = budget && compressor.ceilings?.(stage, request);
    const reserved = ceilings?.length ? reservationOf(ceilings, budget?.price) : undefined;
    if (budget && reserved && !(await budget.keeper.reserve(runId, reserved, request.memoryId)))
      throw new BudgetReachedError(runId);
    const billed: Amount = { usd: 0, tokens: 0 };
    const meter = stageMeter(stage, books, billed, budget?.price);
    try {
      return await call({ ...request, meter });
    } finally {
      if (budget && reserved) await budget.keeper.settle(runId, reserved, billed, request.memoryId);
    }
  };
  return {
    name: compressor.name,
    // The faithfulness gate runs only for an extractive compressor (docs/design.md §11): kept.
    ...(compressor.extractive !== undefined && { extractive: compressor.extractive }),
    compressV1: (request) => metered('v1', request, (r) => compressor.compressV1(r)),
    compressV2: (request) => metered('v2', request, (r) => compressor.compressV2(r)),
  };
}
