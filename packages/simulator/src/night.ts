import { setTimeout as sleep } from 'node:timers/promises';
import { type Memory, rng, stageDueAt, stageIndex } from '@memfade/core';
import { type RunRecord, readSweepCursor } from '@memfade/db';
import { checkNight, type Finding, type Observed } from './checks.js';
import { playEvents } from './play-events.js';
import { buildProduct, type Product } from './product.js';
import {
  duplicateAMemory,
  lengthenAMemory,
  padCardNames,
  sendTurnsById,
  spoilACard,
  spoilAMemory,
  storeIdsAsTheyCome,
  writeAMemoryInAnotherLanguage,
  writeSomeInTraditional,
  writeTimesWithoutZone,
} from './product-quirks.js';
import {
  buildNight,
  freezeWorkers,
  mongoCut,
  mongoFlap,
  type Night,
  offlineNight,
  operatorCommands,
  realModel,
  redisCut,
  redisLoss,
  touchedMemories,
  unmeteredReplies,
} from './schedule.js';
import { type CliResult, type Servers, World } from './world.js';

export interface SeedResult {
  seed: number;
  product: Pick<Product, 'shape' | 'createdAtFormat' | 'turnAt' | 'sendersById'> & { memories: number };
  night: Night;
  findings: Finding[];
  durationMs: number;
  /** Kills of the fleet that landed at a batch's moment. */
  batchKills: number;
  /** Kills of the fleet that landed while the vector outbox drained. */
  drainKills: number;
  /** Workers stopped with SIGTERM during the night. */
  stops: number;
  /** Workers frozen (SIGSTOP) and woken again during the night. */
  freezes: number;
  /** Workers that exited of themselves and were started again (MongoDB cut off at their start-up). */
  restarts: number;
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
/** Offsets the seed of the chats a product draws from the chat fuzz (product.ts). */
const CHATS_SEED = 7_777_777;

export async function runSeed(
  servers: Servers,
  seed: number,
  options: { logDir?: string } = {},
): Promise<SeedResult> {
  const started = Date.now();
  const random = rng(seed);
  const now = new Date();
  // The chats it draws from the fuzz come from a source of their own: a seed's world stays as it was.
  const product = buildProduct(random, now, rng(seed + CHATS_SEED));
  const night = buildNight(random, product);
  spoilACard(random, product);
  mongoCut(random, night);
  realModel(random, night.settings);
  spoilAMemory(random, product, now);
  duplicateAMemory(random, product, touchedMemories(night, product), now);
  redisCut(random, night);
  mongoFlap(random, night);
  operatorCommands(random, night, product.memories.length);
  redisLoss(random, night);
  lengthenAMemory(random, product, now);
  writeAMemoryInAnotherLanguage(random, product, now);
  writeTimesWithoutZone(random, product);
  storeIdsAsTheyCome(random, product);
  writeSomeInTraditional(random, product);
  unmeteredReplies(random, night);
  sendTurnsById(random, product);
  offlineNight(random, night);
  padCardNames(random, product);
  freezeWorkers(random, night);
  const cut = night.events.some((e) => e.kind === 'mongo-cut');
  const world = await World.open(servers, seed, product, night.settings, {
    logDir: options.logDir,
    cut,
    redisCut: night.events.some((e) => e.kind === 'redis-cut'),
  });
  const observed: Observed = {
    product,
    night,
    forgotten: new Set(),
    deleted: new Set(),
    insertedLate: new Set(),
    edited: new Map(),
    nights: [],
    forgets: [],
    prunes: [],
    rollbacks: [],
    retries: [],
    stops: [],
    batchKills: 0,
    drainKills: 0,
    freezes: 0,
  };
  const findings: Finding[] = [];
  let restarts = 0;
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
    // Every night must settle: the checks read the store as the fleet leaves it, and a night still
    // draining would read as a memory without its record.
    const settle = async (night: string) => {
      if (!(await settled(world)))
        findings.push({
          check: 'settles',
          detail: `${night}: not settled after ${SETTLE_MS} ms\n${world.tail()}`,
        });
    };
    await settle('the faulty night');
    observed.nights.push(withRun(await world.cli('run-now', '--wait', '--json')));
    await settle('the recovery night');
    // Turn times without a zone: the CLI, in another time zone, sweeps what the workers staged, and
    // must read the conversations as they did (no stage taken for an edit's, the quiet night idle).
    if (product.timeZones) observed.prunes.push(await world.cli('reindex', '--prune'));
    const before = await snapshot(world, product);
    observed.shortBeforeQuiet = await shortOfDue(world, product, observed.deleted);
    observed.nights.push(withRun(await world.cli('run-now', '--wait', '--json')));
    await settle('the quiet night');
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
    restarts = world.exits.length;
    await world.close();
  }
  const { shape, createdAtFormat, turnAt, sendersById } = product;
  return {
    seed,
    product: { shape, createdAtFormat, turnAt, sendersById, memories: product.memories.length },
    night,
    findings,
    durationMs: Date.now() - started,
    batchKills: observed.batchKills,
    drainKills: observed.drainKills,
    stops: observed.stops.length,
    freezes: observed.freezes,
    restarts,
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
