import { setTimeout as sleep } from 'node:timers/promises';
import { requestKey } from '@memfade/app';
import { type Memory, stageDueAt, stageIndex } from '@memfade/core';
import { type RunRecord, readSweepCursor } from '@memfade/db';
import { checkNight, type Finding, type Observed } from './checks.js';
import { buildProduct, type Product } from './product.js';
import { rng } from './rng.js';
import { buildNight, faultOf, type Night, type SimEvent } from './schedule.js';
import { type CliResult, type Servers, World } from './world.js';

export interface SeedResult {
  seed: number;
  product: Pick<Product, 'shape' | 'createdAtFormat' | 'turnAt'> & { memories: number };
  night: Night;
  findings: Finding[];
  durationMs: number;
  /** Kills of the fleet that landed at a batch's moment. */
  batchKills: number;
  /** Stages the per-user cap left due, over the seed's runs. */
  capLeft: number;
  /** Memories the night budget left due, over every run (a budget that never binds checks nothing). */
  budgetLeft: number;
}

/** How long a night may take to settle before the simulator says it never did. */
const SETTLE_MS = 90_000;

/**
 * One seed: the product and its night are generated from it, the night runs through the built
 * worker processes and CLI while its events fire, then a quiet recovery night, then a further quiet
 * night that must change nothing; the checker reads everything (checks.ts).
 */
export async function runSeed(
  servers: Servers,
  seed: number,
  options: { logDir?: string } = {},
): Promise<SeedResult> {
  const started = Date.now();
  const random = rng(seed);
  const now = new Date();
  const product = buildProduct(random, now);
  const night = buildNight(random, product);
  const world = await World.open(servers, seed, product, night.settings, options.logDir);
  const observed: Observed = {
    product,
    night,
    forgotten: new Set(),
    deleted: new Set(),
    insertedLate: new Set(),
    edited: new Map(),
    nights: [],
    forgets: [],
    batchKills: 0,
  };
  const findings: Finding[] = [];
  let capLeft = 0;
  let budgetLeft = 0;
  try {
    const db = world.services.mongo.db!;
    await db.collection(product.collection).insertMany(product.docs.map((d) => ({ ...d })));
    if (product.cards.length)
      await db.collection('role_cards').insertMany(product.cards.map((c) => ({ ...c })));
    for (let slot = 0; slot < night.settings.workers; slot++) world.startWorker(slot);
    const first = world.cli('run-now', '--wait', '--json');
    void first.then(() => {
      observed.nightOver = true;
    });
    await playEvents(world, observed, night.events);
    // Every worker back and the provider well again: the night must now finish by itself.
    world.emulator.setRule(undefined);
    for (let slot = 0; slot < night.settings.workers; slot++)
      if (!world.workers[slot]) world.startWorker(slot);
    observed.nights.push(withRun(await first));
    // The product's last edits and deletes reach memfade by the erasure sweep, not by a night: the
    // recovery night comes after the sweep has passed over every memory since them.
    await sweptSince(world);
    if (!(await settled(world)))
      findings.push({ check: 'settles', detail: `not settled after ${SETTLE_MS} ms\n${world.tail()}` });
    observed.nights.push(withRun(await world.cli('run-now', '--wait', '--json')));
    await settled(world);
    const before = await snapshot(world, product);
    observed.shortBeforeQuiet = await shortOfDue(world, product, observed.deleted);
    observed.nights.push(withRun(await world.cli('run-now', '--wait', '--json')));
    await settled(world);
    observed.quietChanged = diff(before, await snapshot(world, product));
    findings.push(...(await checkNight(world, observed)));
    // How much the per-user cap bound (the soak reports it: a cap that never binds checks nothing).
    for (const run of await world.services.models.runs.find({}).lean<RunRecord[]>().exec()) {
      capLeft += run.userBudget?.overBudget ?? 0;
      budgetLeft += run.budget?.overBudget ?? 0;
    }
  } catch (error) {
    findings.push({ check: 'crash', detail: String((error as Error)?.stack ?? error) });
  } finally {
    await world.close();
  }
  const { shape, createdAtFormat, turnAt } = product;
  return {
    seed,
    product: { shape, createdAtFormat, turnAt, memories: product.memories.length },
    night,
    findings,
    durationMs: Date.now() - started,
    batchKills: observed.batchKills,
    capLeft,
    budgetLeft,
  };
}

function withRun(result: CliResult): Observed['nights'][number] {
  let runId: string | undefined;
  try {
    runId = (JSON.parse(result.stdout) as RunRecord).runId;
  } catch {
    runId = undefined;
  }
  return { ...result, runId };
}

async function playEvents(world: World, observed: Observed, events: SimEvent[]): Promise<void> {
  const start = Date.now();
  const pending: Promise<unknown>[] = [];
  for (const event of events) {
    await sleep(Math.max(0, event.atMs - (Date.now() - start)));
    pending.push(play(world, observed, event).catch((error) => observed.eventErrors?.push(String(error))));
    // A producer kill is awaited: the second of a pair must see the restarted job.
    if (event.kind === 'kill' && event.target === 'producer') await pending.at(-1);
  }
  await Promise.all(pending);
}

async function play(world: World, observed: Observed, event: SimEvent): Promise<void> {
  const { product } = observed;
  const db = world.services.mongo.db!;
  const memories = db.collection(product.collection);
  const slots = world.workers.map((_, i) => i);
  switch (event.kind) {
    case 'kill': {
      const nightOver = () => observed.nightOver === true;
      if (event.target === 'producer') {
        await producerAtWork(world, observed.lastProducerKill ?? 0, nightOver);
        for (const slot of slots) await world.kill(slot);
        observed.lastProducerKill = Date.now();
      } else if (event.target === 'any') await world.kill(event.atMs % Math.max(1, slots.length));
      else {
        // The whole fleet: whichever worker runs the batch job dies with it.
        const fleet = async () => {
          for (const slot of slots) await world.kill(slot);
        };
        if (await killAtBatchMoment(world, event.target, event.atMs, nightOver, fleet)) observed.batchKills++;
      }
      await sleep(event.restartAfterMs);
      for (const slot of slots) if (!world.workers[slot]) world.startWorker(slot);
      return;
    }
    case 'faults': {
      world.emulator.setRule(({ index }) =>
        ((index * 7919) % 100) / 100 < event.share ? faultOf(event.fault, index) : undefined,
      );
      await sleep(event.forMs);
      world.emulator.setRule(undefined);
      return;
    }
    case 'edit': {
      const memory = product.memories[event.memory]!;
      if (observed.deleted.has(memory.id)) return;
      const field = product.shape === 'own' ? 'content.raw' : 'messages';
      const doc = await memories.findOne({ [product.idField]: memory.id });
      if (!doc) return;
      const raw = field === 'content.raw' ? (doc.content as { raw: unknown }).raw : doc.messages;
      const edited = typeof raw === 'string' ? `${raw} (edited)` : raw;
      if (Array.isArray(edited) && edited.length > 0) {
        const last = { ...(edited.at(-1) as Record<string, unknown>) };
        const key = 'text' in last ? 'text' : 'content';
        last[key] = `${String(last[key])} (edited)`;
        edited[edited.length - 1] = last;
      }
      await memories.updateOne({ [product.idField]: memory.id }, { $set: { [field]: edited } });
      // What the product owns now: its own document with the edit, not memfade's fields beside it
      // (read back, they would be taken for product data and memfade's next write for a change).
      const original = structuredClone(product.docs[event.memory]!) as Record<string, unknown>;
      if (field === 'content.raw') (original.content as { raw: unknown }).raw = edited;
      else original.messages = edited;
      observed.edited.set(memory.id, original);
      return;
    }
    case 'delete': {
      const memory = product.memories[event.memory]!;
      const doc = await memories.findOne({ [product.idField]: memory.id });
      if (!doc) return;
      // Side-collection mode: a memory memfade has not enrolled yet leaves no trace when deleted.
      const enrolled =
        product.shape !== 'side' ||
        (await db.collection('memfade_side').countDocuments({ _id: memory.id as never })) > 0;
      await memories.deleteOne({ [product.idField]: memory.id });
      observed.deleted.add(memory.id);
      if (event.reinsertAfterMs === undefined) return;
      await sleep(event.reinsertAfterMs);
      if (observed.forgotten.has(memory.userId)) return;
      // The same id again, with the product's original document: memfade's fields of the old one gone.
      const original = product.docs[event.memory]!;
      await memories.insertOne({ ...original });
      observed.deleted.delete(memory.id);
      observed.edited.delete(memory.id);
      if (!enrolled) observed.insertedLate.add(memory.id);
      return;
    }
    case 'forget': {
      // A user's account deleted: the product removes their memories, then memfade forgets them.
      const users = [...new Set(product.memories.map((m) => m.userId))];
      if (event.user < 0) {
        const typo = `${users[0]}-typo`;
        observed.forgets.push({
          userId: typo,
          unknown: true,
          ...(await world.cli('forget', '--user', typo, '--json')),
        });
        return;
      }
      const userId = users[event.user % users.length]!;
      if (observed.forgotten.has(userId)) return;
      observed.forgotten.add(userId);
      for (const memory of product.memories.filter((m) => m.userId === userId)) {
        await memories.deleteOne({ [product.idField]: memory.id });
        observed.deleted.add(memory.id);
      }
      // The provider accepts the next batch and its reply to the create call waits (up to 15 s for one).
      const held = event.duringCreate ? world.emulator.batches.holdNextCreate() : undefined;
      if (held) await Promise.race([held.accepted, sleep(15_000)]);
      // The user existed (the product just deleted their memories): --allow-unknown, as docs/cli.md says.
      const receipt = await world.cli('forget', '--user', userId, '--allow-unknown', '--json');
      // What the provider holds of the user the moment forget answered: its receipt must not say clean.
      const stored = world.emulator.batches.storedText();
      const mine = product.memories.filter((m) => m.userId === userId);
      const providerHeld = mine.some((m) => stored.includes(m.marker));
      // The provider's batches with a request of the user's, as they were: where to start if the receipt was wrong.
      const keys = mine.map((m) => requestKey(m.id));
      const batches = world.emulator.batches
        .list()
        .filter((b) => b.customIds.some((id) => keys.some((key) => id.includes(key))))
        .map(({ id, state, customIds, metadata }) => ({ id, state, requests: customIds.length, metadata }));
      observed.forgets.push({ userId, ...receipt, providerHeld, ...(providerHeld && { batches }) });
      held?.release();
      return;
    }
    case 'run-now':
      await world.cli('run-now');
      return;
    case 'backfill':
      await world.cli('backfill', '--all');
      return;
  }
}

/**
 * Waits (up to 40 s: a stalled job comes back after JOB_LOCK_MS) for a producer at work: a nightly
 * job started after `since` whose run holds memories and has not said it is done. Not once the
 * night is over: no producer comes any more, and the events after this one would wait with it.
 */
async function producerAtWork(world: World, since: number, nightOver: () => boolean): Promise<void> {
  const { queues, runs, holds } = world.services;
  const deadline = Date.now() + 40_000;
  while (Date.now() < deadline && !nightOver()) {
    for (const job of await queues.nightly.getJobs(['active'])) {
      if (!job.id || (job.processedOn ?? 0) <= since) continue;
      const run = await runs.state(job.id);
      if (run && !run.producerDoneAt && (await holds.count(job.id)) > 0) return;
    }
    await sleep(5);
  }
}

/**
 * Kills the fleet (`kill`) at a batch's moment, watched at the emulated provider, where it is seen
 * the instant it happens (a job in the queue can start and end between two looks):
 * `batch-submit`, the provider has accepted a batch and memfade's create call has not returned;
 * `batch-poll`, a batch is at the provider; `batch-apply`, a batch's results were just downloaded
 * (a few ms later, picked by the seed, so the kill lands inside the apply). Gives up after 40 s or
 * once the night is over; true when the moment came.
 */
async function killAtBatchMoment(
  world: World,
  target: 'batch-submit' | 'batch-poll' | 'batch-apply',
  atMs: number,
  nightOver: () => boolean,
  kill: () => Promise<void>,
): Promise<boolean> {
  const { batches } = world.emulator;
  const deadline = Date.now() + 40_000;
  const waiting = () => Date.now() < deadline && !nightOver();
  const held = target === 'batch-submit' ? batches.holdNextCreate() : undefined;
  let accepted = false;
  void held?.accepted.then(() => {
    accepted = true;
  });
  const downloaded = batches.resultBytes.total;
  let came = false;
  while (waiting() && !came) {
    if (target === 'batch-submit') came = accepted;
    else if (target === 'batch-poll') came = batches.list().some((b) => b.state === 'in_progress');
    else if (batches.resultBytes.total > downloaded) {
      await sleep(atMs % 50);
      came = true;
    }
    if (!came) await sleep(5);
  }
  await kill();
  held?.release();
  return came;
}

/**
 * Waits (up to SWEEP_WAIT_MS) until the fleet's erasure sweep has passed over the whole store and side
 * collection twice from now (its shared cursor back at the start twice: the first pass may have
 * begun before now). A cursor that stays at the start has nothing to sweep.
 */
async function sweptSince(world: World): Promise<void> {
  const deadline = Date.now() + SWEEP_WAIT_MS;
  const passes = { store: 0, side: 0 };
  const moved = { store: false, side: false };
  let previous = await readSweepCursor(world.services.models);
  const start = Date.now();
  while (Date.now() < deadline) {
    await sleep(20);
    const cursor = await readSweepCursor(world.services.models);
    for (const part of ['store', 'side'] as const) {
      if (cursor[part] !== undefined) moved[part] = true;
      if (previous[part] !== undefined && cursor[part] === undefined) passes[part]++;
    }
    previous = cursor;
    const done = (part: 'store' | 'side') =>
      passes[part] >= 2 || (!moved[part] && Date.now() - start > 3_000);
    if (done('store') && done('side')) return;
  }
}

const SWEEP_WAIT_MS = 20_000;

/** Every run finished, the outbox empty and the queues idle, or false after SETTLE_MS. */
async function settled(world: World): Promise<boolean> {
  const deadline = Date.now() + SETTLE_MS;
  const { services } = world;
  while (Date.now() < deadline) {
    const open = await services.models.runs.countDocuments({ finishedAt: { $exists: false } });
    const queues = [services.queues.nightly, services.queues.compress, services.queues.batch];
    let busy = 0;
    for (const queue of queues) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      busy += Object.values(counts).reduce((a, b) => a + b, 0);
    }
    const { mapping, mine } = services.models;
    const outbox = await mine.collection.countDocuments({ [mapping.fields.vectorPending]: true });
    if (open === 0 && busy === 0 && !outbox) return true;
    await sleep(250);
  }
  return false;
}

/** The live memories below the stage their age says (a budget or a cap may have left them due). */
async function shortOfDue(world: World, product: Product, deleted: Set<string>): Promise<Set<string>> {
  const live = product.memories.filter((m) => !deleted.has(m.id));
  const loaded = await world.services.store.loadMemories(live.map((m) => m.id));
  const asOf = new Date();
  return new Set(
    live
      .filter((m) => {
        const stage = (loaded.get(m.id) as unknown as Memory | undefined)?.meta.compressionStage;
        return stage && stageIndex(stage) < stageIndex(stageDueAt(m.createdAt, asOf, world.config.policy));
      })
      .map((m) => m.id),
  );
}

type Snapshot = Map<string, string>;

async function snapshot(world: World, product: Product): Promise<Snapshot> {
  const db = world.services.mongo.db!;
  const shot: Snapshot = new Map();
  for (const name of [product.collection, 'memfade_side']) {
    for (const doc of await db.collection(name).find({}).toArray()) {
      const { _id, ...rest } = doc;
      shot.set(`${name}/${String(doc[product.idField] ?? _id)}`, JSON.stringify(rest));
    }
  }
  return shot;
}

/** The documents that changed, each with its fields before and after (what a finding prints). */
function diff(a: Snapshot, b: Snapshot): { key: string; change: string }[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys]
    .filter((k) => a.get(k) !== b.get(k))
    .map((key) => ({ key, change: changedFields(a.get(key), b.get(key)) }));
}

function changedFields(before: string | undefined, after: string | undefined): string {
  if (before === undefined || after === undefined) return before === undefined ? 'inserted' : 'deleted';
  const [was, is] = [JSON.parse(before), JSON.parse(after)] as Record<string, unknown>[];
  return Object.keys({ ...was, ...is })
    .filter((field) => JSON.stringify(was![field]) !== JSON.stringify(is![field]))
    .map((field) => `${field}: ${JSON.stringify(was![field])} -> ${JSON.stringify(is![field])}`)
    .join('; ')
    .slice(0, 3_000);
}
