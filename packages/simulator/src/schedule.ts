import type { Rng } from '@memfade/core';
import type { Fault } from '@memfade/testing';
import type { Product } from './product.js';

/**
 * A night for one seed: how it calls the model, under which budget, with how many workers, and
 * what happens to it (docs/guarantees.md "The simulator"). Events fire at a time after the night
 * starts; a kill of the producer waits for the moment it holds memories and is not done.
 */
export interface NightSettings {
  mode: 'sync' | 'batch';
  /** 'offline': the default compressor (offlineNight), no model and no money. */
  provider: 'anthropic' | 'openai' | 'offline';
  /** NIGHT_BUDGET_TOKENS, 0 = none. */
  budgetTokens: number;
  workers: number;
  /** MEMORIES_PER_REQUEST: batch mode's memories of one user in one request line (1 in sync mode). */
  perRequest: number;
  /** USER_NIGHT_BUDGET_USD, 0 = none: low enough to bind now and then. */
  userBudgetUsd: number;
  /** BATCH_MAX_RESUMES when set: 1 gives a run up at its second resume, batches maybe still out. */
  maxResumes?: number;
  /** MEMFADE_MODEL when a real one (realModel): the emulator then bills and caches as its provider does. */
  model?: string;
}

/**
 * When a kill of the fleet lands: while the producer holds memories and is not done; in batch mode
 * while a round's submit job is at work, while a batch is at the provider (its poller waiting), or
 * just after a batch ended (its results being applied); while the vector outbox drains (a record
 * just written, flags still set).
 */
export type KillTarget = 'any' | 'producer' | 'batch-submit' | 'batch-poll' | 'batch-apply' | 'vector-drain';

export type FaultKind = Fault['kind'];

export type SimEvent =
  | { kind: 'kill'; atMs: number; target: KillTarget; restartAfterMs: number }
  | { kind: 'faults'; atMs: number; fault: FaultKind; share: number; forMs: number }
  | { kind: 'edit'; atMs: number; memory: number }
  | { kind: 'delete'; atMs: number; memory: number; reinsertAfterMs?: number }
  /** `user` -1: an id the product never had (an operator's typo). */
  /** `duringCreate`: in batch mode, while the provider has accepted a batch and its create call has not returned. */
  | { kind: 'forget'; atMs: number; user: number; duringCreate?: boolean }
  | { kind: 'run-now'; atMs: number }
  | { kind: 'backfill'; atMs: number }
  /** In batch mode: the provider accepts the next batch and answers its create call `holdMs` later. */
  | { kind: 'slow-create'; atMs: number; holdMs: number }
  /** `memfade reindex --prune`: the whole erasure sweep from another process while workers drain. */
  | { kind: 'prune'; atMs: number }
  /** SIGTERM to one worker (the slot: `atMs` modulo the fleet's size), started again `restartAfterMs` after it exits. */
  | { kind: 'stop'; atMs: number; restartAfterMs: number }
  /** The workers' connections to MongoDB reset and new ones refused for `forMs` (a restart, a failover). */
  | { kind: 'mongo-cut'; atMs: number; forMs: number }
  /**
   * The same for Redis: the queue, the locks and the runs' sets out of reach. `lost`: it comes back
   * without its data (a restart with no persistence, a failover to an empty replica).
   */
  | { kind: 'redis-cut'; atMs: number; forMs: number; lost?: boolean }
  /** An operator's `memfade rollback <id> --to raw|v1` while the workers run. */
  | { kind: 'rollback'; atMs: number; memory: number; to: 'raw' | 'v1' }
  /** An operator's `memfade retry-failed` while the workers run. */
  | { kind: 'retry-failed'; atMs: number }
  /**
   * Workers frozen for `forMs` (SIGSTOP, then SIGCONT) once a job is at work: a paused container, a
   * host swapping, a long GC. `whole`: the fleet; else all but the last worker, which takes their
   * jobs once they stall (JOB_LOCK_MS) while the frozen ones still hold their calls' replies.
   */
  | { kind: 'freeze'; atMs: number; forMs: number; whole: boolean };

export interface Night {
  settings: NightSettings;
  events: SimEvent[];
}

const FAULTS: readonly FaultKind[] = [
  'status',
  'slow',
  'malformed',
  'schema',
  'wrong-language',
  'too-long',
  'truncate',
  'refuse',
  'expired',
  'canceled',
];

export function buildNight(random: Rng, product: Product): Night {
  const settings: NightSettings = {
    mode: random.pick(['sync', 'batch'] as const),
    provider: random.pick(['anthropic', 'openai'] as const),
    budgetTokens: random.chance(0.3) ? random.int(4, 20) * 1_000 : 0,
    workers: random.int(1, 3),
    perRequest: 1,
    userBudgetUsd: 0,
  };
  const users = new Set(product.memories.map((m) => m.userId)).size;
  const events: SimEvent[] = [];
  const count = random.int(1, 6);
  for (let i = 0; i < count; i++) {
    const atMs = random.int(0, 6_000);
    const kind = random.pick([
      'kill',
      'kill',
      'faults',
      'faults',
      'edit',
      'delete',
      'forget',
      'run-now',
      'backfill',
    ] as const);
    if (kind === 'kill')
      events.push({
        kind,
        atMs,
        target: random.pick(['any', 'producer'] as const),
        restartAfterMs: random.int(0, 2_500),
      });
    else if (kind === 'faults')
      events.push({
        kind,
        atMs,
        fault: random.pick(FAULTS),
        share: random.pick([0.2, 0.5, 1]),
        forMs: random.int(500, 5_000),
      });
    else if (kind === 'edit') events.push({ kind, atMs, memory: random.int(0, product.memories.length - 1) });
    else if (kind === 'delete')
      events.push({
        kind,
        atMs,
        memory: random.int(0, product.memories.length - 1),
        ...(random.chance(0.5) && { reinsertAfterMs: random.int(100, 3_000) }),
      });
    else if (kind === 'forget') {
      const user = random.chance(0.2) ? -1 : random.int(0, users - 1);
      // In batch mode, half the forgets come while the provider holds a batch's create call.
      const duringCreate = settings.mode === 'batch' && user >= 0 && random.chance(0.5);
      events.push({ kind, atMs, user, ...(duringCreate && { duringCreate }) });
    } else events.push({ kind, atMs });
  }
  // The producer killed twice (a crash loop at 03:00) is its own case: every fifth seed.
  if (random.chance(0.2))
    events.push(
      { kind: 'kill', atMs: 0, target: 'producer', restartAfterMs: 200 },
      { kind: 'kill', atMs: 0, target: 'producer', restartAfterMs: 200 },
    );
  events.push(...newerLevers(random, settings));
  bindingBudget(random, settings, product.memories.length);
  // Drawn after everything else, so earlier seeds keep their nights.
  if (settings.mode === 'batch' && random.chance(0.3)) settings.maxResumes = 1;
  if (random.chance(0.25))
    events.push({
      kind: 'kill',
      atMs: random.int(0, 4_000),
      target: 'vector-drain',
      restartAfterMs: random.int(0, 2_500),
    });
  // A create call answered after the client's timeout (MODEL_TIMEOUT_MS 3 s): the batch exists,
  // memfade was told nothing; the submit's retry must find it, never send its requests again.
  if (settings.mode === 'batch' && random.chance(0.3))
    events.push({ kind: 'slow-create', atMs: random.int(0, 2_000), holdMs: random.int(3_500, 8_000) });
  // The provider losing requests of a batch: its results have no line for them.
  if (settings.mode === 'batch' && random.chance(0.3))
    events.push({
      kind: 'faults',
      atMs: random.int(0, 4_000),
      fault: 'missing',
      share: random.pick([0.2, 0.5]),
      forMs: random.int(500, 4_000),
    });
  // An operator's full sweep while the workers drain and sweep their pages, deletes and re-inserts
  // under the same id among the night's events: a drain's flag against a sweep's delete.
  if (random.chance(0.25)) events.push({ kind: 'prune', atMs: random.int(0, 6_000) });
  // An orderly stop (a deploy, a scale-down) mid-night: the worker must exit 143 however far its
  // jobs got, and what it leaves unfinished is taken up again (docs/operations.md, "Shutdown").
  if (random.chance(0.25))
    events.push({ kind: 'stop', atMs: random.int(0, 6_000), restartAfterMs: random.int(0, 1_500) });
  return { settings, events: events.sort((a, b) => a.atMs - b.atMs) };
}

/**
 * The levers added after the first soak (drawn last, so a seed's product, settings and events
 * from before stay what they were): several memories a request in batch mode, a per-user cap, and
 * the fleet killed at a batch's moments (grouped lines recovered after a crash).
 */
function newerLevers(random: Rng, settings: NightSettings): SimEvent[] {
  if (settings.mode === 'batch') settings.perRequest = random.pick([1, 2, 4]);
  // A user's stage is reserved at up to about $0.03-0.06 (its first call, retry and repair at
  // their max_tokens): $0.05 binds at once, $0.3 only for a user with many memories.
  if (random.chance(0.3)) settings.userBudgetUsd = random.pick([0.05, 0.1, 0.3]);
  if (settings.mode !== 'batch' || !random.chance(0.5)) return [];
  const count = random.int(1, 2);
  return Array.from({ length: count }, () => ({
    kind: 'kill' as const,
    atMs: random.int(0, 4_000),
    target: random.pick(['batch-submit', 'batch-poll', 'batch-apply'] as const),
    restartAfterMs: random.int(0, 1_500),
  }));
}

/**
 * A night budget that binds partway (drawn after every other lever, so older seeds keep the rest of
 * their night): the first draw (4,000-20,000 tokens) is under one stage's reservation on most
 * nights, so such nights started little and "spend <= budget" held trivially. Half of them get a
 * share (20-80%) of what the night's memories bill instead (about BILLED_PER_MEMORY tokens each
 * here: a reservation is settled to what was billed, so a budget binds on what is billed plus what
 * is in flight, docs/design.md invariant 14).
 */
const BILLED_PER_MEMORY = 1_500;
function bindingBudget(random: Rng, settings: NightSettings, memories: number): void {
  if (settings.budgetTokens === 0 || !random.chance(0.5)) return;
  const share = random.int(2, 8) / 10;
  settings.budgetTokens = Math.max(1, Math.round((share * memories * BILLED_PER_MEMORY) / 1_000)) * 1_000;
}

/**
 * MongoDB away from the workers for a while mid-night (a restart of a durable server, a failover, a
 * network blip): their connections reset, a write in flight maybe applied with its reply lost, new
 * connections refused. Up to 15 s, past CONNECT_TIMEOUT_MS (10 s), so an operation waiting for a
 * server fails too. Drawn after everything else (night.ts), so earlier seeds keep their nights.
 */
export function mongoCut(random: Rng, night: Night): void {
  if (!random.chance(0.5)) return;
  night.events.push({ kind: 'mongo-cut', atMs: random.int(0, 6_000), forMs: random.int(1_000, 15_000) });
  night.events.sort((a, b) => a.atMs - b.atMs);
}

/** The memories an event of the night edits, deletes or forgets (by id). */
export function touchedMemories(night: Night, product: Product): Set<string> {
  const users = [...new Set(product.memories.map((m) => m.userId))];
  const touched = new Set<string>();
  for (const event of night.events) {
    if (event.kind === 'edit' || event.kind === 'delete') touched.add(product.memories[event.memory]!.id);
    if (event.kind === 'forget' && event.user >= 0)
      for (const m of product.memories) if (m.userId === users[event.user % users.length]) touched.add(m.id);
  }
  return touched;
}

/**
 * Redis out of the workers' reach for 1-10 s, a third of the seeds (a restart, a failover; the CLI
 * and the checker reach it directly): its data kept, as a durable Redis keeps it (redisLoss: not). Drawn after every
 * other lever, so earlier seeds keep their nights.
 */
export function redisCut(random: Rng, night: Night): void {
  if (!random.chance(0.3)) return;
  night.events.push({ kind: 'redis-cut', atMs: random.int(0, 6_000), forMs: random.int(1_000, 10_000) });
  night.events.sort((a, b) => a.atMs - b.atMs);
}

/**
 * A third of the Redis cuts come back without Redis's data: every job, lock and run set gone mid-night
 * (the run is finished interrupted, its held memories released, the next night takes them). Drawn
 * after every other lever.
 */
export function redisLoss(random: Rng, night: Night): void {
  const cut = night.events.find((e) => e.kind === 'redis-cut');
  if (cut && random.chance(0.33)) cut.lost = true;
}

/**
 * MongoDB blinking again shortly after its outage, on a third of the seeds that cut it: a second cut
 * of 0.2-1.5 s, up to 3 s after the first ends, while the workers reconnect and the jobs that waited
 * count their ends (the last-attempt bug of docs/design.md invariant 3 needed two outages). Drawn
 * last, so earlier seeds keep their nights.
 */
export function mongoFlap(random: Rng, night: Night): void {
  const cut = night.events.find((e) => e.kind === 'mongo-cut');
  if (!cut || !random.chance(0.3)) return;
  const atMs = cut.atMs + cut.forMs + random.int(0, 3_000);
  night.events.push({ kind: 'mongo-cut', atMs, forMs: random.int(200, 1_500) });
  night.events.sort((a, b) => a.atMs - b.atMs);
}

/**
 * An operator at work mid-night, a third of the seeds: one or two `rollback`s of random memories
 * (to raw or V1: some not compressed yet, refused with exit 1) and now and then `retry-failed`. Drawn last, so
 * earlier seeds keep their nights.
 */
export function operatorCommands(random: Rng, night: Night, memories: number): void {
  if (!random.chance(0.3)) return;
  for (let i = random.int(1, 2); i > 0; i--)
    night.events.push({
      kind: 'rollback',
      // Mostly after the night's first stages are written: a rollback of a raw memory checks little.
      atMs: random.int(2_000, 10_000),
      memory: random.int(0, memories - 1),
      to: random.pick(['raw', 'v1'] as const),
    });
  if (random.chance(0.5)) night.events.push({ kind: 'retry-failed', atMs: random.int(2_000, 8_000) });
  night.events.sort((a, b) => a.atMs - b.atMs);
}

/**
 * A provider that bills replies but leaves their usage out (some OpenAI-compatible servers), a
 * fifth of the seeds: memfade must count each at its ceiling, never as free (docs/design.md
 * invariant 14), sync or batch. Drawn last, so earlier seeds keep their nights.
 */
export function unmeteredReplies(random: Rng, night: Night): void {
  if (!random.chance(0.2)) return;
  const share = random.pick([0.2, 0.5, 1]);
  night.events.push({ kind: 'faults', atMs: random.int(0, 1_000), fault: 'no-usage', share, forMs: 20_000 });
  night.events.sort((a, b) => a.atMs - b.atMs);
}

/**
 * A real model name half the time, where the test name 'emulated' gets the emulator's permissive
 * figures: with it the emulator bills the output's definition and the provider's tool prompt and
 * caches by the model's own rules (minimum prefix, OpenAI's 128-token steps, best-effort batch
 * hits), so the night's money is counted against what the providers would bill. Drawn after the
 * MongoDB cut, so earlier seeds keep their nights.
 */
export const REAL_MODELS = {
  anthropic: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
  openai: ['gpt-5-mini', 'gpt-4.1-mini'],
} as const;
export function realModel(random: Rng, settings: NightSettings): void {
  if (settings.provider !== 'offline' && random.chance(0.5))
    settings.model = random.pick([...REAL_MODELS[settings.provider]]);
}

/**
 * The compressor memfade runs by default, the offline one (MEMFADE_PROVIDER=offline), a fifth of
 * the seeds: sync, no model and no money, so the night's provider faults, batch moments and budgets
 * go; every other event stays, and every memory it cannot write must have a reason the product can
 * mend (checks.ts, "stage refused for good"). Drawn last, so earlier seeds keep their nights.
 */
export function offlineNight(random: Rng, night: Night): void {
  // A fifth, drawn so that CI's seeds keep the nights simulate.test.ts describes.
  if (random.int(1, 5) !== 3) return;
  const { settings } = night;
  Object.assign(settings, {
    provider: 'offline',
    mode: 'sync',
    perRequest: 1,
    budgetTokens: 0,
    userBudgetUsd: 0,
  });
  delete settings.maxResumes;
  delete settings.model;
  const byModel = (e: SimEvent) =>
    e.kind === 'faults' || e.kind === 'slow-create' || (e.kind === 'kill' && e.target.startsWith('batch'));
  night.events = night.events.filter((e) => !byModel(e));
  for (const e of night.events) if (e.kind === 'forget') delete e.duringCreate;
}

/**
 * Workers frozen mid-night, a fifth of the seeds, for 2.5-8 s (past the simulator's JOB_LOCK_MS of
 * 2 s) while a job is at work: their jobs stall and are taken again (by the worker left running, or
 * by themselves when they wake), and what the frozen ones do when they wake (a call answered, a
 * write late) must neither apply a stage twice nor lose a call's money. Drawn last, so earlier
 * seeds keep their nights.
 */
export function freezeWorkers(random: Rng, night: Night): void {
  if (!random.chance(0.2)) return;
  night.events.push({
    kind: 'freeze',
    atMs: random.int(0, 4_000),
    forMs: random.int(2_500, 8_000),
    whole: random.chance(0.5),
  });
  night.events.sort((a, b) => a.atMs - b.atMs);
}

/** The emulator's fault for one request of the kind; statuses and delays picked by request index. */
export function faultOf(kind: FaultKind, index: number): Fault {
  if (kind === 'status')
    return { kind, status: ([429, 500, 503, 529] as const)[index % 4]!, retryAfterSeconds: 1 };
  if (kind === 'slow') return { kind, delayMs: 4_000 };
  return { kind } as Fault;
}
