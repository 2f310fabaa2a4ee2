import { setTimeout as sleep } from 'node:timers/promises';
import * as lancedb from '@lancedb/lancedb';
import { requestKey } from '@memfade/app';
import type { Observed } from './checks.js';
import { byId } from './product.js';
import { faultOf, type SimEvent } from './schedule.js';
import type { World } from './world.js';

/**
 * The night's events (schedule.ts) fired at their moments while the night runs (night.ts): kills
 * of the producer, a worker or the fleet at a batch's moment, provider faults, a batch's create
 * call answered late, the product's edits, deletes and forgotten users, a concurrent run-now,
 * backfill or full erasure sweep (reindex --prune), MongoDB cut off from the workers. What they did goes in `observed` for the checker (checks.ts).
 */
export async function playEvents(world: World, observed: Observed, events: SimEvent[]): Promise<void> {
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
        // The whole fleet: whichever worker runs the batch job or drains the outbox dies with it.
        const fleet = async () => {
          for (const slot of slots) await world.kill(slot);
        };
        if (event.target === 'vector-drain') {
          if (await killWhileDraining(world, nightOver, fleet)) observed.drainKills++;
        } else if (await killAtBatchMoment(world, event.target, event.atMs, nightOver, fleet))
          observed.batchKills++;
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
      const doc = await memories.findOne(byId(product, memory.id));
      if (!doc) return;
      const raw = field === 'content.raw' ? (doc.content as { raw: unknown }).raw : doc.messages;
      // A memory written with no conversation (spoilAMemory) has nothing to edit: $set of undefined
      // would write null, the simulator's own change, taken for memfade's (seed 531).
      if (raw === undefined) return;
      const edited = typeof raw === 'string' ? `${raw} (edited)` : raw;
      if (Array.isArray(edited) && edited.length > 0) {
        const last = { ...(edited.at(-1) as Record<string, unknown>) };
        const key = 'text' in last ? 'text' : 'content';
        last[key] = `${String(last[key])} (edited)`;
        edited[edited.length - 1] = last;
      }
      await memories.updateOne(byId(product, memory.id), { $set: { [field]: edited } });
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
      const doc = await memories.findOne(byId(product, memory.id));
      if (!doc) return;
      // Side-collection mode: a memory memfade has not enrolled yet leaves no trace when deleted.
      const enrolled =
        product.shape !== 'side' ||
        (await db.collection('memfade_side').countDocuments({ _id: memory.id as never })) > 0;
      await memories.deleteOne(byId(product, memory.id));
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
        await memories.deleteOne(byId(product, memory.id));
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
    case 'slow-create': {
      const held = world.emulator.batches.holdNextCreate();
      await Promise.race([held.accepted, sleep(15_000)]);
      await sleep(event.holdMs);
      held.release();
      return;
    }
    case 'run-now':
      await world.cli('run-now');
      return;
    case 'backfill':
      await world.cli('backfill', '--all');
      return;
    case 'prune':
      observed.prunes.push(await world.cli('reindex', '--prune'));
      return;
    case 'rollback': {
      const memory = product.memories[event.memory]!;
      const result = await world.cli('rollback', memory.id, '--to', event.to);
      observed.rollbacks.push({ memoryId: memory.id, to: event.to, ...result });
      return;
    }
    case 'retry-failed':
      observed.retries.push(await world.cli('retry-failed'));
      return;
    case 'stop': {
      const slot = event.atMs % Math.max(1, slots.length);
      if (!world.workers[slot] || world.workers[slot].exitCode !== null) return;
      observed.stops.push(await world.stop(slot));
      await sleep(event.restartAfterMs);
      if (!world.workers[slot]) world.startWorker(slot);
      return;
    }
    case 'freeze': {
      if (!(await jobAtWork(world, () => observed.nightOver === true))) return;
      // The last worker left running unless the whole fleet goes (a fleet of one always does).
      const frozen = event.whole ? slots : slots.slice(0, -1);
      const stopped = await Promise.all(frozen.map((slot) => world.freeze(slot, event.forMs)));
      if (stopped.some(Boolean)) observed.freezes++;
      return;
    }
    case 'mongo-cut':
    case 'redis-cut': {
      const proxy = event.kind === 'mongo-cut' ? world.mongoProxy! : world.redisProxy!;
      await proxy.cut();
      try {
        // Back without its data: every key of this product (its queue prefix) gone.
        if (event.kind === 'redis-cut' && event.lost) await world.loseRedisData();
        await sleep(event.forMs);
      } finally {
        await proxy.restore();
      }
      return;
    }
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
 * Waits (up to 20 s, not once the night is over) for a compress or batch job at work; true when one is.
 * A freeze of idle workers would test nothing.
 */
async function jobAtWork(world: World, nightOver: () => boolean): Promise<boolean> {
  const { compress, batch } = world.services.queues;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !nightOver()) {
    for (const queue of [compress, batch])
      if (((await queue.getJobCounts('active')).active ?? 0) > 0) return true;
    await sleep(5);
  }
  return false;
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
 * Kills the fleet (`kill`) while the vector outbox drains: the vector store's table has just
 * committed a new version (a drain's upsert, or a sweep's delete) while memories were flagged
 * pending, so the kill lands between a record written and its flags cleared, or inside the next
 * batch. Gives up after 40 s or once the night is over; true when the moment came.
 */
async function killWhileDraining(
  world: World,
  nightOver: () => boolean,
  kill: () => Promise<void>,
): Promise<boolean> {
  const { mine, mapping } = world.services.models;
  const pending = () => mine.collection.countDocuments({ [mapping.fields.vectorPending]: true });
  const connection = await lancedb.connect(world.config.vector.dir);
  const version = async () => {
    if (!(await connection.tableNames()).includes('memories')) return 0;
    const table = await connection.openTable('memories');
    try {
      return await table.version();
    } finally {
      table.close();
    }
  };
  const deadline = Date.now() + 40_000;
  let last = await version();
  let flagged = (await pending()) > 0;
  let came = false;
  while (Date.now() < deadline && !nightOver() && !came) {
    await sleep(2);
    const now = await version();
    // A new version while memories were flagged: a drain's upsert has just committed; its flags
    // are cleared a few ms later, so the kill goes now rather than after another look.
    came = now !== last && flagged;
    last = now;
    if (!came) flagged = (await pending()) > 0;
  }
  await kill();
  connection.close();
  return came;
}
