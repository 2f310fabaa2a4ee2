import type { Batch, BatchEndpoint, Json, LineFormat } from './batch-store.js';
import { errorReply, send } from './wire.js';

/** Anthropic Message Batches (`client.messages.batches.*`) over the emulator's batch store. */

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** A Message Batches result line: the message, the error, or why the request never ran. */
export const messageLines: LineFormat = {
  result: (item, reply) => {
    item.line = {
      custom_id: item.customId,
      result:
        reply.status === 200
          ? { type: 'succeeded', message: reply.body }
          : { type: 'errored', error: reply.body },
    };
  },
  notRun: (item, kind) => {
    item.line = { custom_id: item.customId, result: { type: kind } };
  },
};

function messageBatch(batch: Batch, url: string): Json {
  const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  if (batch.state !== 'ended') counts.processing = batch.items.length;
  else
    for (const item of batch.items) {
      // A request the provider lost (no result line) is still one of the batch's: its counts add
      // up to the batch's size, as the API's always do.
      if (item.line) counts[(item.line.result as Json).type as keyof typeof counts]++;
      else counts.errored++;
    }
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: batch.state,
    request_counts: counts,
    created_at: iso(batch.createdAt),
    ended_at: iso(batch.endedAt),
    expires_at: iso(batch.createdAt + 24 * 3_600_000),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancelAt),
    results_url: batch.state === 'ended' ? `${url}/v1/messages/batches/${batch.id}/results` : null,
  };
}

/** Serves `/v1/messages/batches` (`parts`: the path after it) from the store. */
export const anthropicBatches: BatchEndpoint = async (store, req, res, parts, raw, query) => {
  const render = (batch: Batch) => messageBatch(batch, store.ctx.url());
  const [id, action] = parts;
  if (req.method === 'POST' && !id) {
    const body = JSON.parse(raw.toString('utf8')) as { requests?: { custom_id: string; params: Json }[] };
    const requests = body.requests ?? [];
    const ids = requests.map((r) => r.custom_id);
    if (!requests.length || ids.some((c) => !CUSTOM_ID.test(c)) || new Set(ids).size !== ids.length) {
      const error = errorReply(
        'messages',
        400,
        undefined,
        'requests: custom_id must be unique, 1-64 of [a-zA-Z0-9_-]',
      );
      return send(res, 400, error.body);
    }
    const batch = store.create('messages', []);
    batch.items = store.itemsFrom(
      'messages',
      batch.id,
      requests.map((r) => ({ customId: r.custom_id, body: r.params })),
      req.headers,
    );
    return store.replyCreated(res, batch, render(batch));
  }
  if (req.method === 'GET' && !id) {
    const all = store.newestFirst('messages');
    return send(res, 200, store.page(all, query, 'after_id', 'before_id', render));
  }
  const batch = store.batches.get(id!);
  if (batch?.api !== 'messages')
    return send(res, 404, errorReply('messages', 404, undefined, 'not found').body);
  if (req.method === 'POST' && action === 'cancel') {
    store.cancel(batch);
    return send(res, 200, render(batch));
  }
  store.tick(batch);
  if (req.method === 'DELETE' && !action) {
    // As the API documents: only an ended batch can be deleted; it goes with its requests and results.
    if (batch.state !== 'ended') {
      const error = errorReply('messages', 400, undefined, 'batch has not ended: cancel it first');
      return send(res, 400, error.body);
    }
    store.batches.delete(batch.id);
    return send(res, 200, { id: batch.id, type: 'message_batch_deleted' });
  }
  if (action === 'results') {
    if (batch.state !== 'ended')
      return send(res, 400, errorReply('messages', 400, undefined, 'not ended').body);
    return store.streamLines(res, batch, batch.items);
  }
  return send(res, 200, render(batch));
};
