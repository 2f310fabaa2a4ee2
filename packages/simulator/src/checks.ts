import { compressJobId } from '@memfade/app';
import { type Memory, stageDueAt, stageIndex } from '@memfade/core';
import { type RunRecord, UNATTRIBUTED_USER, UNKNOWN_USER, type UserCost } from '@memfade/db';
import { inputFindings, speakerFindings, standingRefusal } from './input-checks.js';
import { leaks } from './leak-checks.js';
import { uncountedDetail } from './money-detail.js';
import { byId, type Product } from './product.js';
import type { Night } from './schedule.js';
import { vectorFindings } from './vector-checks.js';
import type { CliResult, World } from './world.js';

/** One broken promise: which check, and what it saw (enough to start debugging from the seed). */
export interface Finding {
  check: string;
  detail: string;
}

/** What the simulator did and saw during a seed's nights, for the checker. */
export interface Observed {
  product: Product;
  night: Night;
  /** Users whose account was deleted and `memfade forget --user` run. */
  forgotten: Set<string>;
  /** Memories the product deleted (and did not insert again). */
  deleted: Set<string>;
  /**
   * Side-collection mode: memories the product deleted before memfade enrolled them and inserted
   * again, with their old creation date. If a night's enrolment passed their date while they were
   * gone, they are a late insert with an old date, which only a backfill enrols (docs/mapping.md
   * "Finding the due memories"): they may stay raw (simulate --seed 323).
   */
  insertedLate: Set<string>;
  /** The product's document after its last edit, by memory id. */
  edited: Map<string, unknown>;
  /** `run-now --wait --json` of the night, the recovery night and the quiet night. */
  nights: (CliResult & { runId?: string })[];
  forgets: (CliResult & { userId: string; providerHeld?: boolean; batches?: unknown[]; unknown?: boolean })[];
  /** `reindex --prune` during the night. */
  prunes: CliResult[];
  /** `rollback <id> --to` during the night, and what it answered. */
  rollbacks: (CliResult & { memoryId: string; to: 'raw' | 'v1' })[];
  /** `retry-failed` during the night. */
  retries: CliResult[];
  /** How the workers stopped with SIGTERM during the night ended. */
  stops: { code: number | null; signal: string | null }[];
  /** Documents the quiet night changed (of memories at their due stage). */
  quietChanged?: { key: string; change: string }[];
  /** Memories below their due stage before the quiet night. */
  shortBeforeQuiet?: Set<string>;
  eventErrors?: string[];
  /** When the workers were last killed at a producer's moment (a second kill waits for the job to restart). */
  lastProducerKill?: number;
  /** The night's `run-now --wait` has returned: a producer kill no longer waits for a producer. */
  nightOver?: boolean;
  /** Kills of the fleet that landed at a batch's moment (submit, poll, apply). */
  batchKills: number;
  /** Kills of the fleet that landed while the vector outbox drained. */
  drainKills: number;
  /** Workers frozen (SIGSTOP) and woken again. */
  freezes: number;
}

/** Paths memfade itself writes in its own document shape (the product inserts them as memfade documents them). */
const MEMFADE_OWN = [
  'meta.compressionStage',
  'meta.compressedAt',
  'compression',
  'vectorSync',
  'rev',
  'memfadeLastError',
];

/**
 * The invariants (docs/design.md §5) checked on everything the night left: every memory at the
 * stage its age says or failed with its reason recorded; product data byte-identical; no stage
 * applied twice, no request submitted twice; no hold of a finished or dead run; every run finished; tokens billed = counted,
 * under the budget and summed by the per-user ledger; nothing of a forgotten user anywhere; a quiet night changes nothing; every
 * exit code and receipt agrees with the records.
 */
export async function checkNight(world: World, seen: Observed): Promise<Finding[]> {
  const findings: Finding[] = [];
  const add = (check: string, detail: string) => findings.push({ check, detail });
  const { services } = world;
  const { product } = seen;
  const runs = (await services.models.runs.find({}).lean().exec()) as unknown as RunRecord[];
  const errorsOf = new Map<string, string[]>();
  // Every error of the run: a memory memfade may not write (a product field of its name) has its
  // reason only here, and a night can have more than the 100 `status` shows.
  for (const run of runs)
    for (const error of await services.runs.errors(run.runId, 1_000_000))
      errorsOf.set(error.memoryId, [...(errorsOf.get(error.memoryId) ?? []), error.message]);
  const budgetReached = runs.some((run) => run.budget?.reachedAt);
  const ledgers = new Map<string, UserCost[]>();
  for (const run of runs) ledgers.set(run.runId, await services.runs.userCosts.ofRun(run.runId));
  // USER_NIGHT_BUDGET_USD: a user whose cap left memories due in some run (their ledger says so).
  const capped = new Set(
    [...ledgers.values()].flat().flatMap((u) => ((u.overBudget ?? 0) > 0 ? [u.userId] : [])),
  );
  const asOf = new Date();
  const live = product.memories.filter((m) => !seen.deleted.has(m.id));
  const loaded = await services.store.loadMemories(live.map((m) => m.id));
  const db = services.mongo.db!;
  const atDue = new Set<string>();
  for (const memory of live) {
    const doc = loaded.get(memory.id) as unknown as Memory | undefined;
    if (!doc) {
      add('memory lost', `${memory.id} is in the product but memfade cannot read it`);
      continue;
    }
    const stage = doc.meta.compressionStage;
    const due = stageDueAt(memory.createdAt, asOf, world.config.policy);
    const reason = doc.compression?.lastError?.message ?? errorsOf.get(memory.id)?.at(-1);
    if (stageIndex(stage) > stageIndex(due)) add('stage past due', `${memory.id} is ${stage}, due ${due}`);
    else if (stage === due) atDue.add(memory.id);
    else if (
      !reason &&
      !budgetReached &&
      !capped.has(memory.userId) &&
      !(stage === 'raw' && seen.insertedLate.has(memory.id))
    )
      add(
        'stage not reached',
        `${memory.id} is ${stage}, due ${due}, and no reason is recorded\n${JSON.stringify({ history: doc.compression?.history, rev: doc.rev, vectorSync: doc.vectorSync })}\n${await jobsOf(world, memory.id)}\nruns: ${JSON.stringify(runs.map(({ runId, trigger, counts, interrupted, producerDied }) => ({ runId, trigger, counts, interrupted, producerDied })))}`,
      );
    // Still short with a reason after the quiet nights: a refusal standing every night (input-checks.ts).
    else if (reason && !budgetReached && !capped.has(memory.userId) && !seen.edited.has(memory.id))
      findings.push(...standingRefusal(memory, stage, due, reason));
    // Whether it was read, refused and named as its input says (input-checks.ts).
    findings.push(
      ...inputFindings({ memory, doc, stage, due, reason, product, edited: seen.edited.has(memory.id) }),
    );
    // Once each since the last rollback that dropped the stage (an operator's, which keeps history).
    const history = doc.compression?.history ?? [];
    const rollbacks =
      (doc.compression as { rollbacks?: { to: string; at: Date }[] } | undefined)?.rollbacks ?? [];
    for (const target of ['v1', 'v2']) {
      const dropped = rollbacks.filter((r) => r.to === 'raw' || target === 'v2').at(-1)?.at;
      const since = history.filter((h) => h.stage === target && !(dropped && h.at <= dropped));
      if (since.length > 1)
        add('applied twice', `${memory.id}: ${target} in its history ${since.length} times`);
    }
    // The product's own data, leaf by leaf, exactly as it wrote it.
    const original = (seen.edited.get(memory.id) ?? product.docs[product.memories.indexOf(memory)]) as Record<
      string,
      unknown
    >;
    const current = await db.collection(product.collection).findOne(byId(product, memory.id));
    for (const [path, value] of leaves(original)) {
      if (product.shape === 'own' && MEMFADE_OWN.some((p) => path === p || path.startsWith(`${p}.`)))
        continue;
      const now = JSON.stringify(at(current as Record<string, unknown>, path));
      if (now !== JSON.stringify(value))
        add('product data changed', `${memory.id}: ${path} was ${JSON.stringify(value)}, is ${now}`);
    }
  }
  // Holds: none may outlive its run (invariant 12).
  const finished = new Set(runs.filter((r) => r.finishedAt).map((r) => r.runId));
  const known = new Set(runs.map((r) => r.runId));
  for (const hold of await services.models.holds.collection.find({}).toArray()) {
    const runId = String(hold.runId);
    if (finished.has(runId) || !known.has(runId))
      add('hold outlives its run', `${String(hold._id)} held by ${runId}`);
    else add('run open after the nights', `${String(hold._id)} held by open run ${runId}`);
  }
  for (const run of runs) if (!run.finishedAt) add('run never finished', run.runId);
  // Money: every billed token counted, and no run past its budget (invariants 9, 14). A call whose
  // reply never came is counted apart at its ceiling: the provider billed at most that much for it.
  // A reply that left its usage out is counted at its ceiling too: more than it billed, never less.
  const { sync, batch, unreported } = world.emulator.billed();
  const billed = sync.tokens + batch.tokens;
  const counted = runs.reduce((sum, run) => sum + tokensOf(run), 0);
  const unanswered = runs.reduce((sum, run) => sum + (run.unanswered?.tokens ?? 0), 0);
  if ((billed < counted && unreported.replies === 0) || billed > counted + unanswered)
    add(
      'billed != counted',
      `the provider billed ${billed} tokens, the runs counted ${counted}, and ${unanswered} at most for calls unanswered; ${await uncountedDetail(world)}`,
    );
  // Who said each turn, as the model was told (input-checks.ts).
  const bodies = world.emulator.requests.filter((r) => r.api !== 'embeddings').map((r) => r.body);
  findings.push(...speakerFindings(bodies, product));
  // One submitter per round (invariant 9): no request is in two of the provider's batches.
  // From the requests the provider received, not its list of batches: a deleted Anthropic batch
  // (BATCH_DELETE_FILES) is gone from that list, and with it the evidence.
  const batchesOf = new Map<string, Set<string>>();
  for (const { customId, batchId } of world.emulator.requests)
    if (customId && batchId) batchesOf.set(customId, (batchesOf.get(customId) ?? new Set()).add(batchId));
  const twice = [...batchesOf].filter(([, batches]) => batches.size > 1).map(([id]) => id);
  if (twice.length > 0)
    add(
      'submitted twice',
      `${twice.length} requests in two batches at the provider: ${twice.slice(0, 3).join(', ')}`,
    );
  // The per-user ledger is the run's books by user (docs/design.md §3): it sums to each run.
  for (const run of runs) {
    const ledger = ledgers.get(run.runId) ?? [];
    const byUsers = ledger.reduce((sum, u) => sum + Object.values(u.tokens).reduce((a, b) => a + b, 0), 0);
    if (byUsers !== tokensOf(run))
      add('ledger != run', `${run.runId} counted ${tokensOf(run)} tokens, its users' ledger ${byUsers}`);
    findings.push(...userBudgetFindings(run, ledger, seen.night.settings.userBudgetUsd));
  }
  const limit = seen.night.settings.budgetTokens;
  for (const run of runs) {
    const spent = tokensOf(run) + (run.unanswered?.tokens ?? 0);
    if (limit > 0 && spent > limit)
      add('budget passed', `${run.runId} spent up to ${spent} of ${limit} tokens`);
  }
  // Exit codes and run records (invariant 15).
  for (const night of seen.nights) {
    const run = runs.find((r) => r.runId === night.runId);
    // Its job lost with Redis's data before a producer took it: 4, saying so.
    if (!run && night.code === 4 && /never started: its job is gone from the queue/.test(night.stderr))
      continue;
    if (!run) {
      add(
        'exit code',
        `run-now --wait exited ${night.code} without a run record: ${night.stderr.slice(-500)}`,
      );
      continue;
    }
    const expected = run.interrupted ? 4 : run.counts.failed > 0 ? 1 : undefined;
    if (expected !== undefined && night.code !== expected)
      add(
        'exit code',
        `${run.runId} exited ${night.code}; interrupted ${Boolean(run.interrupted)}, failed ${run.counts.failed}`,
      );
    if (expected === undefined && ![0, 5].includes(night.code))
      add('exit code', `${run.runId} exited ${night.code} though it finished with nothing failed`);
  }
  // Forget: nothing of a forgotten user anywhere, and a receipt that said so truthfully.
  const markers = product.memories.filter((m) => seen.forgotten.has(m.userId)).map((m) => m.marker);
  for (const hit of await leaks(world, product, markers)) add('forgotten text kept', hit);
  findings.push(...(await vectorFindings(world, product)));
  // An operator's rollback says what it did: exit 0 with its memory now holding that rollback, 1
  // (not found, nothing to roll back, changed meanwhile) with a line naming the memory.
  for (const rollback of seen.rollbacks) {
    if (rollback.code === 1 && rollback.stderr.includes(`memory ${rollback.memoryId}`)) continue;
    // An edit or a forget since removes the rolled-back results with the rest; a delete, the memory.
    if (!loaded.has(rollback.memoryId) || seen.edited.has(rollback.memoryId)) continue;
    if (seen.forgotten.has(product.memories.find((m) => m.id === rollback.memoryId)?.userId ?? '')) continue;
    const doc = loaded.get(rollback.memoryId) as unknown as Memory | undefined;
    const rolled = (doc?.compression as { rollbacks?: { to: string }[] } | undefined)?.rollbacks ?? [];
    if (rollback.code !== 0 || !rolled.some((r) => r.to === rollback.to))
      add(
        'rollback',
        `rollback ${rollback.memoryId} --to ${rollback.to} exited ${rollback.code} (${rollback.stdout.trim()}${rollback.stderr.trim()}), rollbacks on it: ${JSON.stringify(rolled)}`,
      );
  }
  for (const retry of seen.retries)
    if (retry.code !== 0) add('retry-failed', `exited ${retry.code}: ${retry.stderr.trim()}`);
  for (const prune of seen.prunes)
    if (prune.code !== 0)
      add('prune exit code', `reindex --prune exited ${prune.code}: ${prune.stderr.slice(-300)}`);
  // Dead of SIGTERM: stopped while starting, before its handler was set. Dead of SIGKILL: a kill
  // event of the night reached it first or during its shutdown (nothing but the simulator sends one).
  for (const { code, signal } of seen.stops)
    if (code !== 143 && signal !== 'SIGTERM' && signal !== 'SIGKILL')
      add('stop exit code', `a worker stopped with SIGTERM ended with ${code ?? signal}, not 143 (128 + 15)`);
  for (const forget of seen.forgets) {
    if (forget.unknown) {
      if (forget.code === 0)
        add('forget exit code', `forget --user ${forget.userId}, a user memfade never saw, exited 0`);
      continue;
    }
    let receipt: { place: string; status: string }[] = [];
    try {
      receipt = (JSON.parse(forget.stdout) as { receipt: typeof receipt }).receipt;
    } catch {
      add(
        'forget receipt',
        `forget --user ${forget.userId} exited ${forget.code} without a receipt: ${forget.stderr.slice(-300)}`,
      );
    }
    const bad = receipt.filter((r) => r.status === 'left' || r.status === 'failed');
    if (bad.length > 0 !== (forget.code === 1))
      add(
        'forget exit code',
        `forget --user ${forget.userId} exited ${forget.code} with ${bad.length} places left or failed`,
      );
    const provider = receipt.find((r) => r.place.includes('provider'));
    if (provider?.status === 'clean' && forget.providerHeld)
      add(
        'forget receipt',
        `forget --user ${forget.userId} said the provider was clean while it held the user's text\nreceipt: ${JSON.stringify(receipt)}\nthe provider's batches with the user's requests then: ${JSON.stringify(forget.batches)}`,
      );
  }
  // A budget or a per-user cap is per run: what the recovery night left due by it, the quiet night
  // may do (simulate --seed 1013: a user's cap of $0.3 reached in every night).
  const recovery = runs.find((r) => r.runId === seen.nights[1]?.runId);
  const leftByCap = new Set(
    (ledgers.get(recovery?.runId ?? '') ?? []).flatMap((u) => ((u.overBudget ?? 0) > 0 ? [u.userId] : [])),
  );
  for (const { key, change } of seen.quietChanged ?? []) {
    const id = key.split('/').slice(1).join('/');
    const userId = product.memories.find((m) => m.id === id)?.userId ?? '';
    const leftDue = recovery?.budget?.reachedAt !== undefined || leftByCap.has(userId);
    if (atDue.has(id) && !(seen.shortBeforeQuiet?.has(id) && leftDue))
      add('quiet night changed', `${key}\n${change}`);
  }
  for (const error of seen.eventErrors ?? []) add('event', error);
  // A worker exits of itself only when MongoDB is away at its start-up (exit 2, one line naming
  // MongoDB: docs/cli.md "Exit codes"), which only a night that cut MongoDB off can do.
  const cut = seen.night.events.some((e) => e.kind === 'mongo-cut');
  for (const exit of world.exits) {
    const last = exit.output.trim().split('\n').at(-1) ?? '';
    if (!(cut && exit.code === 2 && /^memfade-worker: MongoDB at \S+ /.test(last)))
      add(
        'worker exited',
        `worker ${exit.slot} exited by itself (${exit.code ?? exit.signal}): ${last}\n${exit.output}`,
      );
  }
  return findings;
}

/**
 * USER_NIGHT_BUDGET_USD (docs/design.md invariant 14, per user), from the run's per-user ledger: no
 * user billed past the cap in the run, and the memories the cap left due counted alike on the
 * users' documents and on the run (none without a cap).
 */
function userBudgetFindings(run: RunRecord, ledger: UserCost[], cap: number): Finding[] {
  const findings: Finding[] = [];
  // The ledger's lines for no user (a memory erased, what no user's document got) have no cap.
  const users = ledger.filter((u) => u.userId !== UNKNOWN_USER && u.userId !== UNATTRIBUTED_USER);
  for (const u of users)
    if (cap > 0 && u.cost > cap + 1e-9)
      findings.push({
        check: 'user budget passed',
        detail: `${run.runId}: user ${u.userId} was billed $${u.cost} of a $${cap} cap`,
      });
  // Counted by document: a memory gone before its cap was checked is counted under (unknown).
  const left = ledger.reduce((n, u) => n + (u.overBudget ?? 0), 0);
  const reached = ledger.filter((u) => (u.overBudget ?? 0) > 0).length;
  const onRun = { left: run.userBudget?.overBudget ?? 0, users: run.userBudget?.users ?? 0 };
  if (left !== onRun.left || reached !== onRun.users || (cap === 0 && left > 0))
    findings.push({
      check: 'user budget count',
      detail: `${run.runId} (cap $${cap}): the run says ${onRun.left} memories of ${onRun.users} users left by the cap, the ledger ${left} of ${reached}`,
    });
  return findings;
}

/** The memory's compress jobs as the queue keeps them: where to start when a memory was left behind. */
async function jobsOf(world: World, memoryId: string): Promise<string> {
  const jobs = [];
  for (const target of ['v1', 'v2'] as const) {
    const job = await world.services.queues.compress.getJob(compressJobId(memoryId, target));
    if (!job) continue;
    const { runId } = job.data as { runId?: string };
    const { attemptsMade, finishedOn, failedReason, returnvalue } = job;
    jobs.push({
      target,
      runId,
      state: await job.getState(),
      attemptsMade,
      finishedOn,
      failedReason,
      returnvalue,
    });
  }
  return `jobs: ${JSON.stringify(jobs)}`;
}

function tokensOf(run: RunRecord): number {
  return [run.tokens.v1, run.tokens.v2].reduce(
    (n, u) => n + u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens,
    0,
  );
}

function leaves(doc: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(doc).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (key === '_id') return [];
    if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date))
      return leaves(value as Record<string, unknown>, path);
    return [[path, value] as [string, unknown]];
  });
}

function at(doc: Record<string, unknown> | null, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], doc ?? undefined);
}
