import { enqueueCompress, openQueues, producerConnection, QUEUES, workerConnection } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { uniqueName } from '@memfade/testing';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startWorkers } from '../setup/workers.js';

describe('compress job payloads', () => {
  const prefix = uniqueName('q');
  const producer = producerConnection(inject('redisUrl'));
  const queues = openQueues({ connection: producer, prefix });

  afterAll(async () => {
    await queues.close();
    await producer.quit();
  });

  it('are validated on enqueue, with the field named', async () => {
    await expect(enqueueCompress(queues, [{ runId: 'r', memoryId: '', target: 'v1' }])).rejects.toThrow(
      /memoryId/,
    );
    await expect(
      enqueueCompress(queues, [{ runId: 'r', memoryId: 'm', target: 'v3' as 'v1' }]),
    ).rejects.toThrow(/target/);
  });

  it('get ids BullMQ accepts even when the memory id has a colon', async () => {
    expect(await enqueueCompress(queues, [{ runId: 'r', memoryId: 'chat:42', target: 'v1' }])).toEqual({
      enqueued: 1,
      heldBack: 0,
    });
    expect(await enqueueCompress(queues, [{ runId: 'r2', memoryId: 'chat:42', target: 'v1' }])).toEqual({
      enqueued: 0,
      heldBack: 0,
    });
    expect(await queues.compress.getJob('chat%3A42.v1')).toBeDefined();
    await queues.compress.obliterate({ force: true });
  });

  describe('a payload that bypassed the typed enqueue', () => {
    const worker = workerConnection(inject('redisUrl'));
    let events: QueueEvents;
    beforeAll(async () => {
      events = new QueueEvents(QUEUES.compress.name, {
        connection: workerConnection(inject('redisUrl')),
        prefix,
      });
      await events.waitUntilReady();
    });
    afterAll(async () => {
      await events.close();
      await worker.quit();
    });

    it('fails at once as unrecoverable, without retries', async () => {
      const raw = new Queue(QUEUES.compress.name, { connection: producer, prefix });
      const deps = {} as never; // the processor must refuse the payload before touching anything
      const workers = startWorkers(
        { connection: worker, prefix, logger: createLogger({ level: 'silent' }), concurrency: 1 },
        deps,
      );
      const job = await raw.add('job', { runId: 'r', memoryId: 42 }, { attempts: 5 });
      const failed = new Promise<string>((resolve) =>
        events.on('failed', ({ failedReason }) => resolve(failedReason)),
      );
      expect(await failed).toMatch(/invalid compress payload/);
      expect((await raw.getJob(job.id!))?.attemptsMade).toBe(1);
      await workers.close();
      await raw.close();
    });
  });
});
