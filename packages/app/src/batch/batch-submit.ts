import {
  type BatchLine,
  type CallCeiling,
  errorMessage,
  isGroup,
  type PendingStage,
  prepareBatchStage,
} from '@memfade/core';
import type { BatchRecord, BatchRequestRecord } from '@memfade/db';
import {
  type BatchSubmitPayload,
  classifyFailure,
  enqueueBatchPoll,
  type HeldLock,
  redisLock,
} from '@memfade/queue';
import type { Job } from 'bullmq';
import { eraseBatch } from '../erasure/batch-erasure.js';
import { type Amount, reservationOf } from '../runs/budget.js';
import { carriedEnd } from '../runs/outcome.js';
import { writeDrafts } from './batch-drafts.js';
import { type Built, type ClosedLine, LineGrouper, singleLine } from './batch-groups.js';

import {
  type BatchDeps,
  fail,
  inChunks,
  Outcomes,
  toSync,
  wallClock,
  withPreloaded,
} from './batch-requests.js';

/** The batch-submit job: builds a round's requests and submits them, recording each batch first. */

/** Clock skew allowed between this worker and the provider when looking for a batch after a crash. */
const FIND_MARGIN_MS = 5 * 60_000;

/**
 * How long a submitter that died keeps its round from the next one (a live one renews it). Longer
 * than BullMQ's job lock on purpose: a submit job stalled by a busy process is delivered again while
 * its first attempt still runs, and the second waits for the first instead of submitting beside it.
 */
const SUBMIT_LOCK_MS = 15_000;

export async function processBatchSubmit(
  job: Job<BatchSubmitPayload>,
  deps: BatchDeps,
): Promise<{ submitted: number; sync: number }> {
  // Parsed by the job table's wrapper before this runs (queue/jobs.ts): a bad payload never gets here.
  const { runId, round } = job.data;
  // One submitter per round: a record without a provider id is an earlier attempt's that died
  // (not one still in its create call), and no request goes in two batches (docs/design.md invariant 9).
  const key = `${deps.queues.batch.qualifiedName}:submit-lock:${runId}:${round}`;
  const exclusive = redisLock(deps.queues.redis, key, { ttlMs: SUBMIT_LOCK_MS, retryMs: 200 });
  return exclusive((lock) => submitRound(job.data, deps, lock));
}

async function submitRound(
  { runId, round, resume }: BatchSubmitPayload,
  deps: BatchDeps,
  lock: HeldLock,
): Promise<{ submitted: number; sync: number }> {
  const existing = await deps.batches.batches(runId, round);
  const known = existing.flatMap((b) => (b.batchId ? [b.batchId] : []));
  // A batch recorded without its provider id: an earlier attempt died around submit(). If the
  // provider accepted it, it is found again and kept; otherwise it is submitted now.
  const resubmit = new Map<number, BatchLine[]>();
  for (const batch of existing.filter((b) => !b.batchId)) {
    const found = await acceptedId(batch, known, deps);
    if (found) {
      known.push(found);
      await accepted(batch, found, deps);
    } else resubmit.set(batch.index, []);
  }
  // A batch recorded with its provider id whose requests were not all marked submitted yet (a crash
  // between the two writes, accepted()): they are at the provider and billed, so none is built
  // again, and none settled another way while its line is paid for (docs/design.md invariant 9).
  for (const batch of existing)
    if (batch.batchId && batch.state !== 'applied')
      await deps.batches.markSubmitted(batch.customIds, batch.batchId);
  const owner = new Map<string, number>();
  for (const batch of existing) for (const id of batch.customIds) owner.set(id, batch.index);
  let next = existing.reduce((max, b) => Math.max(max, b.index + 1), 0);
  let submitted = 0;
  let sync = 0;
  let lines: BatchLine[] = [];
  const submitFull = async (all: boolean) => {
    const batches = deps.model.split(lines, deps.settings.maxRequests);
    // The last batch may still grow, unless the scan is over.
    lines = all ? [] : (batches.pop() ?? []);
    for (const batch of batches)
      if (await submitBatch({ runId, round, index: next++ }, batch, deps, lock)) submitted++;
  };
  /** Lines whose requests are recorded: sent in a new batch, or in the batch an earlier attempt recorded. */
  const place = async (closed: ClosedLine[]) => {
    for (const { line, built } of closed) {
      const index = owner.get(built[0]!.record.customId);
      if (index === undefined) {
        lines.push(line);
        // Past one batch's worth, the full batches go: at most one batch is held here at a time.
        if (lines.length > batchSize(deps)) await submitFull(false);
      } else resubmit.get(index)?.push(line);
    }
  };
  /** Records each closed line's requests as prepared (with the line that carries them), then places them. */
  const record = async (closed: ClosedLine[], out: Outcomes) => {
    for (const { built } of closed)
      for (const { record, set } of built) out.move(record, ['pending', 'prepared'], set);
    await out.write();
    await place(closed);
  };
  const perRequest = deps.settings.perRequest ?? 1;
  const grouper = new LineGrouper(perRequest, deps.model);
  const pending = deps.batches.requests(runId, round, ['pending', 'prepared'], perRequest > 1);
  for await (const records of inChunks(pending, deps.settings.chunk)) {
    // A chunk's requests are built and recorded (what each stands for) before any is submitted.
    const store = await withPreloaded(
      deps.store,
      records.map((record) => record.memoryId),
    );
    const out = new Outcomes(runId, deps);
    const closed: ClosedLine[] = [];
    const drafts: { record: BatchRequestRecord; pending: PendingStage }[] = [];
    for (const record of records) {
      const built = await prepare(record, { ...deps, store }, out);
      if (built === 'sync') sync++;
      else if (typeof built === 'string') continue;
      else if ('kind' in built) drafts.push({ record, pending: built });
      // A request an earlier attempt put in a batch on its own stays on its own.
      else if (owner.has(record.customId) && !record.line) closed.push(singleLine(built));
      else closed.push(...grouper.add(built));
    }
    await writeDrafts(drafts, { ...deps, store }, out);
    await record(closed, out);
  }
  await record(grouper.close(true), new Outcomes(runId, deps));
  await submitFull(true);
  for (const [index, group] of resubmit) {
    const batch = existing.find((b) => b.index === index)!;
    if (group.length === 0) {
      // Nothing of it sent: it names no request, so no later attempt looks for it at the provider.
      await deps.batches.updateBatch({ runId, round, index }, { state: 'applied', customIds: [] });
      continue;
    }
    if (await submitBatch(batch, group, deps, lock)) submitted++;
  }
  deps.logger?.info(
    { runId, round, batches: submitted, sync },
    `run ${runId} round ${round}: ${submitted} batches submitted, ${sync} memories sent the sync way`,
  );
  await enqueueBatchPoll(deps.queues, { runId, round, poll: 0, resume }, deps.settings.pollMs);
  return { submitted, sync };
}

/** Requests per batch: BATCH_MAX_REQUESTS under the provider's limit (0 = the provider's). */
function batchSize(deps: BatchDeps): number {
  const { maxRequests } = deps.settings;
  return maxRequests > 0 ? Math.min(maxRequests, deps.model.maxRequests) : deps.model.maxRequests;
}

/**
 * Records the batch before calling the provider, then its id once accepted. A crash between the
 * two leaves a record without an id, which the next attempt resolves (processBatchSubmit). Between
 * the two, requests `memfade forget` erased are left out: nothing of a forgotten memory is sent
 * after the forget (docs/design.md invariant 8); one erased after this look is in the record's
 * custom ids, where forget finds the batch.
 */
async function submitBatch(
  key: Pick<BatchRecord, 'runId' | 'round' | 'index'>,
  lines: BatchLine[],
  deps: BatchDeps,
  lock: HeldLock,
): Promise<boolean> {
  const grouped = lines.some(isGroup) ? { lines: lines.length } : {};
  const record = await deps.batches.openBatch(
    { ...key, customIds: lines.flatMap(memberIds), ...grouped },
    wallClock(),
  );
  if (record.batchId) return true;
  const erased = await deps.batches.erasedAmong(lines.flatMap(memberIds));
  const sent = lines.flatMap((line) => withoutErased(line, erased));
  if (sent.length === 0) {
    await deps.batches.updateBatch(key, { state: 'applied', customIds: [] });
    return false;
  }
  // The record says what is sent before the create call: an earlier attempt's record may name
  // more (requests since deferred, gone or erased), and the next attempt after a crash finds the
  // provider's batch by its size. Found by the old size it was not: sent again beside it, or left
  // unread at the provider and billed (simulate --seed 1495; docs/design.md invariant 9).
  const what = { customIds: sent.flatMap(memberIds), ...(sent.some(isGroup) && { lines: sent.length }) };
  if (!sameRequests(record, what)) await deps.batches.recordSending(key, what);
  // A submitter whose lock lapsed stops here: another may be resolving this very record.
  await lock.confirm();
  const { batchId } = await deps.model.submit(sent, { runId: key.runId, round: key.round });
  await accepted({ ...record, ...what }, batchId, deps);
  return true;
}

/** Whether a batch record already names exactly these requests, in as many lines. */
function sameRequests(record: BatchRecord, what: Pick<BatchRecord, 'customIds' | 'lines'>): boolean {
  const ids = new Set(record.customIds);
  return (
    record.lines === what.lines &&
    ids.size === what.customIds.length &&
    what.customIds.every((id) => ids.has(id))
  );
}

/** The custom ids of the requests a line carries. */
const memberIds = (line: BatchLine): string[] =>
  isGroup(line) ? line.members.map((m) => m.customId) : [line.customId];

/** A line without the requests forget erased: a group keeps its custom id (its records name it). */
function withoutErased(line: BatchLine, erased: Set<string>): BatchLine[] {
  if (!isGroup(line)) return erased.has(line.customId) ? [] : [line];
  const members = line.members.filter((m) => !erased.has(m.customId));
  return members.length ? [{ ...line, members }] : [];
}

/**
 * The provider's id of a batch recorded without one (its submit died around the create call),
 * when the provider accepted it: found by its label, its time and its size, among batches not `known`.
 */
export function acceptedId(
  batch: BatchRecord,
  known: string[],
  deps: BatchDeps,
): Promise<string | undefined> {
  const since = new Date(batch.submittingAt.getTime() - FIND_MARGIN_MS);
  const label = { runId: batch.runId, round: batch.round };
  return deps.model.findSubmitted(label, since, batch.lines ?? batch.customIds.length, known);
}

async function accepted(batch: BatchRecord, batchId: string, deps: BatchDeps): Promise<void> {
  const { runId } = batch;
  const stored = await deps.batches.accepted(batch, {
    batchId,
    submittedAt: wallClock(),
    customIds: batch.customIds,
    ...(batch.lines !== undefined && { lines: batch.lines }),
  });
  await deps.batches.markSubmitted(batch.customIds, batchId);
  await deps.tracker.batchCounted(runId, { submitted: 1 });
  // `memfade forget` came while the create call was in flight and marked the batch: its erased
  // requests' text is at the provider now, so the batch goes the way forget sends any batch.
  if (stored?.eraseFiles && (await deps.batches.erasedAmong(batch.customIds)).size > 0) {
    // Ended already, its lines billed: the round's poll reads them (the erased ones counted, never
    // applied) and then deletes the files, as for any batch forget marked. Deleted here, they
    // would be billed and never counted (simulate --seed 5099).
    if ((await deps.model.status(batchId)).ended) {
      deps.logger?.info(
        { runId, batchId },
        `batch ${batchId}: forgotten while it was submitted; ended, so its files go once its lines are counted`,
      );
      return;
    }
    const outcome = await eraseBatch({ ...stored, batchId }, deps.model, deps.batches);
    deps.logger?.info(
      { runId, batchId, outcome: outcome.kind },
      `batch ${batchId}: forgotten while it was submitted: ${outcome.what.join('; ')}`,
    );
  }
}

/**
 * Builds one record's request (with the update that records it as prepared), or settles the record
 * when its memory goes another way, or gives V2 from its draft, to write with the chunk's
 * (batch-drafts.ts).
 */
async function prepare(
  record: BatchRequestRecord,
  deps: BatchDeps,
  out: Outcomes,
): Promise<Built | PendingStage | 'sync' | 'settled'> {
  // Prepared by an earlier attempt that died before sending it: what that attempt reserved on the
  // night's budget still stands. Built again it keeps it (reserving only what the request may now
  // cost beyond it); going another way, the record gives it back as it moves on (Outcomes.settle).
  const earlier = record.state === 'prepared' ? record.reserved : undefined;
  const giveBack = () => earlier && out.settle(record, NOTHING);
  let prepared: Awaited<ReturnType<typeof prepareBatchStage>>;
  try {
    prepared = await prepareBatchStage(record.memoryId, record.target, deps);
  } catch (error) {
    // A bad memory fails alone (the classifier every queue acts on); anything else retries the submit.
    if (classifyFailure(error).kind !== 'bad-input') throw error;
    giveBack();
    await fail(record, 'input', errorMessage(error), deps, out);
    return 'settled';
  }
  if (prepared.kind !== 'request') giveBack();
  if (prepared.kind === 'noop') {
    out.end(record, 'noop', carriedEnd(record.carried ?? []));
    return 'settled';
  }
  if (prepared.kind === 'sync') {
    await toSync(record, deps, out);
    return 'sync';
  }
  if (prepared.kind === 'write') return prepared;
  const { request, stage, expectedStage, expectedRev, inputHash } = prepared;
  // Past the night's budget no request is added: the memory stays due for the next night. Its
  // line is reserved at batch prices, the retry and repair it may need at sync prices.
  const { budget } = deps;
  const ceilings = deps.model.ceilings(stage, request);
  const ceiling = budget && reservationOf(ceilings, budget.price, { batchLine: true });
  const reserved = ceiling && earlier ? largest(ceiling, earlier) : ceiling;
  const more = reserved && earlier ? beyond(reserved, earlier) : reserved;
  const reserve = async () =>
    !more ||
    (more.usd <= 0 && more.tokens <= 0) ||
    budget!.keeper.reserve(record.runId, more, record.memoryId);
  if (budget && !(await reserve())) {
    giveBack();
    out.end(record, 'deferred', carriedEnd(record.carried ?? []));
    return 'settled';
  }
  // Recorded once its line is known (batch-groups.ts), before anything is submitted.
  const set = {
    state: 'prepared' as const,
    stage,
    expectedStage,
    expectedRev,
    inputHash,
    lineCeiling: lineCeiling(ceilings[0]!),
    ...(reserved && { reserved }),
  };
  return { record, item: { customId: record.customId, stage, request }, set };
}

const lineCeiling = ({ inputTokens, outputTokens }: CallCeiling) => ({ inputTokens, outputTokens });
const NOTHING: Amount = { usd: 0, tokens: 0 };
const largest = (a: Amount, b: Amount): Amount => ({
  usd: Math.max(a.usd, b.usd),
  tokens: Math.max(a.tokens, b.tokens),
});
/** What `a` holds beyond `b` (`a` >= `b` in both). */
const beyond = (a: Amount, b: Amount): Amount => ({ usd: a.usd - b.usd, tokens: a.tokens - b.tokens });
