import {
  type BatchApplyOutcome,
  type BatchItemResult,
  type CallMeter,
  checkBatchReply,
  costOf,
  errorMessage,
  failureReason,
  type PendingStage,
  RetentionGateError,
  type TargetStage,
  type Usage,
  writeBatchStages,
  ZERO_USAGE,
} from '@memfade/core';
import type { BatchRequestRecord, BatchRequestState, TransitionCount } from '@memfade/db';
import { classifyFailure, failsForGood } from '@memfade/queue';
import { type Amount, billedAmount, runBooks, stageMeter } from '../runs/budget.js';
import { carriedEnd, countedTransition } from '../runs/outcome.js';
import { withDraft } from './batch-drafts.js';
import {
  type BatchDeps,
  fail,
  Outcomes,
  type ResultCount,
  requestId,
  toSync,
  wallClock,
} from './batch-requests.js';

/**
 * A result line's outcome (docs/design.md §6): each request of an ended batch settled from its
 * line, by the same checks and conditional write as a sync reply (core/batch-stage.ts): applied,
 * retried in the next round, handed to the sync path or the next night past the deadline, failed
 * with its reason, or, erased by `memfade forget`, counted and never read. batch-poll.ts streams
 * the results file and hands each chunk of lines here.
 */

type ResultLine = { record: BatchRequestRecord; result: BatchItemResult };

/**
 * A request and its result line as the run counts it: a line that said nothing of its usage (some
 * OpenAI-compatible servers) at the ceiling its request was recorded with when it was prepared
 * (docs/design.md invariant 14), never as free.
 */
export function counted(record: BatchRequestRecord, result: BatchItemResult): ResultLine {
  if (!result.usageMissing || !record.lineCeiling) return { record, result };
  // The stage gets the same ceiling as its usage from the model's accept() (ai batch-compressor.ts).
  return { record, result: { ...result, usage: { ...ZERO_USAGE, ...record.lineCeiling } } };
}

const stageOf = (record: BatchRequestRecord): TargetStage => record.stage ?? (record.target as TargetStage);

/** The result lines of erased requests: the run counts each memory once, with what its line cost. */
export async function forgotten(runId: string, lines: ResultLine[], deps: BatchDeps): Promise<void> {
  const out = new Outcomes(runId, deps);
  const price = deps.prices?.[deps.model.model];
  for (const { record, result } of lines) {
    const stage = stageOf(record);
    // A succeeded line's usage, or a group member's share of its paid line.
    const usage = result.usage;
    const paid = usage ? [{ stage, usage, cost: costOf(usage, price, { batch: true }) }] : [];
    // Erased before its batch was accepted: forget counted its earlier rounds, so only the line counts.
    const counted = record.erasedUnsubmitted;
    const carried = counted ? [] : (record.carried ?? []);
    const settled = counted ? { ...record, discarded: [] } : record;
    const end = { ...carriedEnd(carried), discarded: paid };
    out.end(settled, 'forgotten', end, [result.outcome], ['erased']);
    out.settle(record, paidCalls(record, result, deps).billed);
  }
  await out.write(wallClock());
}

/**
 * The result lines of requests given up while their batch was at the provider (the run finished
 * `interrupted`: its producer died, batch-recovery.ts): paid for, so counted on the run at batch
 * prices, once whoever reads them, and never applied (their memories were released, due again).
 */
export async function givenUp(runId: string, lines: ResultLine[], deps: BatchDeps): Promise<void> {
  const counting = await deps.batches.countLinesOfInterrupted(lines.map(({ record }) => record.customId));
  const price = deps.prices?.[deps.model.model];
  const paid = lines.flatMap(({ record, result }) =>
    counting.has(record.customId) && result.usage
      ? [
          {
            memoryId: record.memoryId,
            stage: stageOf(record),
            usage: result.usage,
            cost: costOf(result.usage, price, { batch: true }),
          },
        ]
      : [],
  );
  if (paid.length) await deps.tracker.spent(runId, paid);
}

/**
 * Gives a chunk of requests the outcomes of their result lines: each reply checked, the chunk's
 * stages written together (writeBatchStages), then every outcome written together (Outcomes).
 */
export async function settleAll(
  runId: string,
  lines: ResultLine[],
  late: boolean,
  deps: BatchDeps,
): Promise<void> {
  const out = new Outcomes(runId, deps);
  const checked: { record: BatchRequestRecord; lineUsage: Usage; pending: PendingStage }[] = [];
  for (const { record, result } of lines) {
    const calls = paidCalls(record, result, deps);
    const pending = await settle(record, result, late, { ...deps, meter: calls.meter }, out);
    out.settle(record, calls.billed);
    if (pending && result.outcome === 'succeeded') checked.push({ record, lineUsage: result.usage, pending });
  }
  const written = await writeBatchStages(
    checked.map((c) => c.pending),
    runId,
    deps,
  );
  // V2 from a V1's draft is written by the next round's submit, which reads the memory anyway
  // (batch-drafts.ts writeDrafts), not here: written here by the poller that wrote V1, another
  // poller of the same results could still send V2 to the next round, and a race between the two
  // counted a V1 twice (fault suite, "two replicas polling", about 1 run in 5).
  for (const [i, { record, lineUsage }] of checked.entries())
    settleChecked(record, lineUsage, written[i]!, late, deps, out);
  await out.write(wallClock());
}

/**
 * What a request's calls were billed: its line, at batch prices, and the sync calls its reply
 * needed (a truncation retry, a repair turn), each counted on the run as its reply arrives
 * (docs/design.md invariant 9), whatever happens to the poll after it.
 */
function paidCalls(
  record: BatchRequestRecord,
  result: BatchItemResult,
  deps: BatchDeps,
): { meter: CallMeter; billed: Amount } {
  const stage = stageOf(record);
  const price = deps.budget?.price ?? deps.prices?.[deps.model.model];
  const usage = result.usage;
  const billed = usage ? billedAmount(usage, price, { batch: true }) : none();
  const books = runBooks(record.runId, record.memoryId, deps.tracker, deps.prices);
  const meter = stageMeter(stage, books, billed, price);
  return { meter, billed };
}

const none = (): Amount => ({ usd: 0, tokens: 0 });

/** Gives one request the outcome of its result line in `out`, or the stage its reply makes, to write. */
async function settle(
  request: BatchRequestRecord,
  result: BatchItemResult,
  late: boolean,
  deps: BatchDeps & { meter: CallMeter },
  out: Outcomes,
): Promise<PendingStage | undefined> {
  let record = request;
  const stage = stageOf(record);
  if (result.outcome !== 'succeeded') {
    const counts: ResultCount[] = [result.outcome];
    // A group line paid for that did not answer this memory: its share is counted with the memory.
    if (result.usage) {
      const cost = costOf(result.usage, deps.prices?.[deps.model.model], { batch: true });
      record = { ...record, discarded: [...(record.discarded ?? []), { stage, usage: result.usage, cost }] };
    }
    if (late) await afterDeadline(record, deps, out, counts);
    else if (result.retryable && record.attempts + 1 < deps.settings.maxRounds)
      nextRound(record, { attempts: record.attempts + 1, error: result.message }, out, deps, counts);
    else await fail(record, stage, `batch request ${result.outcome}: ${result.message}`, deps, out, counts);
    return undefined;
  }
  const expected = {
    memoryId: record.memoryId,
    stage,
    expectedStage: record.expectedStage ?? 'raw',
    expectedRev: record.expectedRev ?? 0,
    inputHash: record.inputHash ?? '',
  };
  const price = deps.prices?.[deps.model.model];
  let checked: Awaited<ReturnType<typeof checkBatchReply>>;
  try {
    checked = await checkBatchReply(
      expected,
      record.runId,
      (request) => deps.model.accept(stage, { ...request, meter: deps.meter }, result.turn),
      deps,
    );
  } catch (error) {
    // What retrying cannot fix fails the memory, by the classifier every queue acts on (a bad
    // memory, a reply past its repair, a repair the provider refuses for good), as in a compress
    // job; anything else retries the poll (queue/jobs.ts).
    const failure = classifyFailure(error);
    if (!failsForGood(failure)) throw error;
    const bad = failure.kind === 'bad-input';
    // The line was paid for: the run counts it either way (its retry and repair were counted as
    // they were billed).
    const discarded = { stage, usage: result.usage, cost: costOf(result.usage, price, { batch: true }) };
    record = { ...record, discarded: [...(record.discarded ?? []), discarded] };
    const why = { retentionRefused: error instanceof RetentionGateError, reason: failureReason(error) };
    await fail(record, bad ? 'input' : stage, errorMessage(error), deps, out, ['succeeded'], why);
    return undefined;
  }
  if (checked.kind === 'write') return checked;
  settleChecked(record, result.usage, checked, late, deps, out);
  return undefined;
}

/**
 * Gives a request whose reply was checked (and its stage written, or not) its outcome, in `out`;
 */
function settleChecked(
  request: BatchRequestRecord,
  lineUsage: Usage,
  outcome: BatchApplyOutcome,
  late: boolean,
  deps: BatchDeps,
  out: Outcomes,
): void {
  let record = request;
  const stage = stageOf(record);
  const price = deps.prices?.[deps.model.model];
  const carried = record.carried ?? [];
  if (outcome.kind === 'applied') {
    deps.onTransition?.();
    const { transition: t } = outcome;
    // The stage's usage holds the batch line's and, when it needed them, its sync retry's and
    // repair's; those were counted as they were billed (paidCalls): the line here, at batch prices.
    const done = countedTransition(
      { ...t, skipped: false },
      lineUsage,
      costOf(lineUsage, price, { batch: true }),
    );
    const counts: ResultCount[] = ['succeeded', 'applied'];
    const v2 = withDraft(outcome.draft, deps);
    // A raw memory due for V2 whose V2 did not come from its draft: V2 goes into the next round.
    if (t.stage === 'v1' && record.target === 'v2' && v2.length === 0)
      nextRound(record, { attempts: 0, carried: [...carried, done] }, out, deps, counts, 'applied');
    else out.end(record, 'applied', { outcome: 'completed', transitions: [...carried, done, ...v2] }, counts);
    return;
  }
  // A reply thrown away was paid for all the same: the run counts its line whatever the reason
  // (docs/design.md invariant 9), as the sync path counts a discarded call.
  const cost = costOf(lineUsage, price, { batch: true });
  record = { ...record, discarded: [...(record.discarded ?? []), { stage, usage: lineUsage, cost }] };
  // The product edited the memory after its request was built: compressed again from the new text.
  if (outcome.reason === 'edited') {
    if (record.attempts + 1 < deps.settings.maxRounds && !late) {
      const retry = { attempts: record.attempts + 1, error: 'edited meanwhile' };
      nextRound(record, retry, out, deps, ['succeeded']);
      return;
    }
  }
  out.end(record, 'noop', carriedEnd(carried), ['succeeded']);
}

/** The memory's request for the next round, then this one settled as `state`. */
function nextRound(
  record: BatchRequestRecord,
  next: { attempts: number; error?: string; carried?: TransitionCount[] },
  out: Outcomes,
  deps: BatchDeps,
  counts: ResultCount[],
  state: BatchRequestState = 'retried',
): void {
  const round = record.round + 1;
  const carried = next.carried ?? record.carried;
  // A retry of a memory whose group line did not answer it goes alone (docs/batch-mode.md).
  const retry = next.attempts > record.attempts;
  out.nextRound({
    runId: record.runId,
    round,
    customId: requestId(deps.model, record.runId, round, record.memoryId),
    memoryId: record.memoryId,
    ...(record.userId && { userId: record.userId }),
    target: record.target,
    ...(retry && (record.line || record.alone) && { alone: true }),
    state: 'pending',
    attempts: next.attempts,
    ...(carried && { carried }),
    ...(record.discarded && { discarded: record.discarded }),
  });
  out.move(record, ['submitted'], { state, ...(next.error && { error: next.error }) }, counts);
}

/** Past the deadline: the sync path now, or the next night, by BATCH_AFTER_DEADLINE. */
export async function afterDeadline(
  record: BatchRequestRecord,
  deps: BatchDeps,
  out: Outcomes,
  counts: ResultCount[] = [],
): Promise<void> {
  if (deps.settings.afterDeadline === 'sync') return toSync(record, deps, out, counts);
  out.end(record, 'deferred', carriedEnd(record.carried ?? []), counts);
}
