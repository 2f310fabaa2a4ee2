/**
 * The floor of the worker's CPU, measured in a process of its own (the emulator's CPU is the bench
 * process's): what each library a compress job must use costs at least, one kind of call at a time,
 * `concurrency` calls in flight, after a warm-up of as many calls. Prints one JSON line.
 */
import { createCompressor } from '@memfade/ai';
import { formatMemoryForPrompt, type Memory, measureLength, stagePolicy, v1Target } from '@memfade/core';
import { closeMongo, connectMongo, createModels, ensureIndexes, MongoMemoryStore } from '@memfade/db';
import { producerConnection, QUEUES, workerConnection } from '@memfade/queue';
import { Queue, Worker } from 'bullmq';
import { conversationTurns, seed } from './dataset.js';
import type { FloorResult, FloorSettings } from './floor.js';

const settings = JSON.parse(process.argv[2] ?? '{}') as FloorSettings;

const cpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** CPU ms per call of `call(i)` for i in [from, from + count), `concurrency` at a time. */
async function perCall(from: number, count: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let next = from;
  const started = cpuMs();
  await Promise.all(
    Array.from({ length: settings.concurrency }, async () => {
      while (next < from + count) await call(next++);
    }),
  );
  return (cpuMs() - started) / count;
}

/** Warm-up calls first (connection pools full, code compiled), then the measured ones. */
async function measured(call: (i: number) => Promise<unknown>): Promise<number> {
  await perCall(0, settings.calls, call);
  return perCall(settings.calls, settings.calls, call);
}

async function mongoRoundTrip(): Promise<number> {
  const mongo = await connectMongo(settings.mongodbUri, { dbName: settings.tag });
  try {
    const models = createModels(mongo);
    await ensureIndexes(models);
    await seed(models, { memories: 2 * settings.calls, users: 10, now: new Date(), idPrefix: 'floor-' });
    const store = new MongoMemoryStore(models);
    return await measured((i) => store.loadMemory(`bench-floor-m${i}`));
  } finally {
    await closeMongo(mongo);
  }
}

async function modelCall(): Promise<number> {
  const compressor = createCompressor({
    provider: 'anthropic',
    apiKey: 'bench',
    model: 'emulated',
    baseURL: settings.emulatorUrl,
    timeoutMs: 60_000,
    maxTokens: 4_096,
  });
  // Conversation 2 is the English one of the benchmark data (the end-to-end runs send both).
  const memory = { memoryId: 'floor', content: { raw: conversationTurns(2) } } as unknown as Memory;
  const text = formatMemoryForPrompt(memory, 'en');
  const targetLength = v1Target(measureLength(text), stagePolicy());
  return measured((i) =>
    compressor.compressV1({
      memoryId: `floor-${i}`,
      language: 'en',
      personality: 'warm',
      roleCard: { userId: 'floor' },
      text,
      targetLength,
    }),
  );
}

/** One job through BullMQ with memfade's job options and an empty processor. */
async function queueJob(): Promise<number> {
  const connection = producerConnection(settings.redisUrl);
  const queue = new Queue(QUEUES.compress.name, {
    connection,
    prefix: settings.tag,
    defaultJobOptions: QUEUES.compress.defaults,
  });
  const jobs = (from: number) =>
    Array.from({ length: settings.calls }, (_, i) => ({
      name: 'job',
      data: { runId: 'floor', memoryId: `floor-m${from + i}`, target: 'v1' },
      opts: { jobId: `floor-m${from + i}.v1` },
    }));
  const drain = async (from: number): Promise<number> => {
    await queue.addBulk(jobs(from));
    let done = 0;
    const started = cpuMs();
    let ended = started;
    const workerRedis = workerConnection(settings.redisUrl);
    const worker = new Worker(QUEUES.compress.name, async () => 'done', {
      connection: workerRedis,
      prefix: settings.tag,
      concurrency: settings.concurrency,
    });
    await new Promise<void>((resolve) => {
      worker.on('completed', () => {
        if (++done < settings.calls) return;
        ended = cpuMs();
        resolve();
      });
    });
    await worker.close();
    workerRedis.disconnect();
    return (ended - started) / settings.calls;
  };
  try {
    await drain(0);
    return await drain(settings.calls);
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

const mongo = await mongoRoundTrip();
const model = await modelCall();
const queue = await queueJob();
const result: FloorResult = {
  concurrency: settings.concurrency,
  mongoRoundTripMs: mongo,
  modelCallMs: model,
  queueJobMs: queue,
  perMemoryMs: 3 * mongo + model + queue,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
