import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Batch, BatchEndpoint, BatchStore, Json, LineFormat, StoredFile } from './batch-store.js';
import { errorReply, send } from './wire.js';

/** The OpenAI Batch API and its Files (`client.files.*`, `client.batches.*`) over the emulator's batch store. */

/** A Batch API output line (a response) or error line (why the request never ran). */
export const chatLines: LineFormat = {
  result: (item, reply) => {
    item.failed = reply.status !== 200;
    item.line = {
      id: `batch_req_${item.customId}`,
      custom_id: item.customId,
      response: { status_code: reply.status, request_id: `req_${item.customId}`, body: reply.body },
      error: null,
    };
  },
  notRun: (item, kind) => {
    item.failed = true;
    item.line = {
      id: `batch_req_${item.customId}`,
      custom_id: item.customId,
      response: null,
      error:
        kind === 'expired'
          ? {
              code: 'batch_expired',
              message: 'This request could not be executed before the completion window expired.',
            }
          : {
              code: 'batch_cancelled',
              message: 'This request was not executed because the batch was cancelled.',
            },
    };
  },
  /** An ended batch's output file (the responses) and error file (the rest), each when it has lines. */
  ended: (batch, store) => {
    if (batch.items.some((i) => !i.failed)) {
      batch.outputFileId = `file-out-${batch.id}`;
      store.addFile({ id: batch.outputFileId, batch: { id: batch.id, kind: 'output' } });
    }
    if (batch.items.some((i) => i.failed)) {
      batch.errorFileId = `file-err-${batch.id}`;
      store.addFile({ id: batch.errorFileId, batch: { id: batch.id, kind: 'error' } });
    }
  },
};

function openaiBatch(batch: Batch): Json {
  const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.floor(ms / 1000));
  const status =
    batch.state === 'ended' ? batch.end : batch.state === 'canceling' ? 'cancelling' : 'in_progress';
  const done = batch.items.filter((i) => i.line);
  const failed = done.filter((i) => i.failed && (i.line!.response as Json | null) !== null).length;
  return {
    id: batch.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    input_file_id: batch.inputFileId,
    completion_window: '24h',
    status,
    created_at: seconds(batch.createdAt),
    expires_at: seconds(batch.createdAt + 24 * 3_600_000),
    completed_at: batch.end === 'completed' ? seconds(batch.endedAt) : null,
    expired_at: batch.end === 'expired' ? seconds(batch.endedAt) : null,
    cancelled_at: batch.end === 'cancelled' ? seconds(batch.endedAt) : null,
    failed_at: batch.end === 'failed' ? seconds(batch.endedAt) : null,
    cancelling_at: seconds(batch.cancelAt),
    output_file_id: batch.outputFileId ?? null,
    error_file_id: batch.errorFileId ?? null,
    errors: batch.errors ? { object: 'list', data: batch.errors } : null,
    metadata: batch.metadata ?? null,
    request_counts: {
      total: batch.items.length,
      completed: done.filter((i) => !i.failed).length,
      failed,
    },
  };
}

/** Serves `/v1/files` (`parts`: the path after it): uploads, listing, and batches' output and error files. */
export async function openaiFiles(
  store: BatchStore,
  req: IncomingMessage,
  res: ServerResponse,
  parts: string[],
  raw: Buffer,
): Promise<void> {
  const [id, action] = parts;
  if (req.method === 'POST' && !id) {
    const form = await new Response(new Uint8Array(raw), {
      headers: { 'content-type': String(req.headers['content-type']) },
    }).formData();
    const file = form.get('file') as File;
    const stored: StoredFile = {
      id: store.newId('file-'),
      purpose: String(form.get('purpose')),
      filename: file.name,
      createdAt: Date.now(),
      content: await file.text(),
    };
    store.files.set(stored.id, stored);
    return send(res, 200, fileObject(stored));
  }
  if (req.method === 'GET' && !id) {
    // One page, oldest first; `purpose` filters as OpenAI's does.
    const purpose = new URL(req.url ?? '/', 'http://emulator').searchParams.get('purpose');
    const listed = [...store.files.values()].filter((f) => !purpose || f.purpose === purpose);
    return send(res, 200, { object: 'list', data: listed.map(fileObject), has_more: false });
  }
  const file = store.files.get(id!);
  if (!file) return send(res, 404, errorReply('chat', 404, undefined, 'no such file').body);
  if (req.method === 'DELETE' && !action) {
    store.files.delete(file.id);
    return send(res, 200, { id: file.id, object: 'file', deleted: true });
  }
  if (action !== 'content') return send(res, 200, fileObject(file));
  if (!file.batch) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(file.content);
    return;
  }
  const batch = store.batches.get(file.batch.id)!;
  const failed = file.batch.kind === 'error';
  return store.streamLines(
    res,
    batch,
    batch.items.filter((i) => Boolean(i.failed) === failed),
  );
}

/** Serves `/v1/batches` (`parts`: the path after it) from the store. */
export const openaiBatches: BatchEndpoint = async (store, req, res, parts, raw, query) => {
  const render = (batch: Batch) => openaiBatch(batch);
  const [id, action] = parts;
  if (req.method === 'POST' && !id) {
    const body = JSON.parse(raw.toString('utf8')) as {
      input_file_id: string;
      endpoint: string;
      metadata?: Record<string, string>;
    };
    const input = store.files.get(body.input_file_id);
    if (!input?.content || input.purpose !== 'batch') {
      return send(res, 400, errorReply('chat', 400, undefined, 'input_file_id: no batch input file').body);
    }
    const batch = store.create('chat', [], {
      inputFileId: input.id,
      ...(body.metadata ? { metadata: body.metadata } : {}),
    });
    const parsed: { customId: string; body: Json }[] = [];
    const errors: Json[] = [];
    input.content
      .split('\n')
      .filter((l) => l.trim())
      .forEach((text, index) => {
        try {
          const line = JSON.parse(text) as {
            custom_id?: string;
            method?: string;
            url?: string;
            body?: Json;
          };
          if (!line.custom_id || line.method !== 'POST' || line.url !== body.endpoint || !line.body)
            throw new Error();
          if (parsed.some((p) => p.customId === line.custom_id)) throw new Error();
          parsed.push({ customId: line.custom_id, body: line.body });
        } catch {
          errors.push({ code: 'invalid_request', line: index + 1, message: 'invalid line', param: null });
        }
      });
    if (errors.length) {
      batch.errors = errors;
      batch.state = 'ended';
      batch.end = 'failed';
      batch.endedAt = Date.now();
    } else batch.items = store.itemsFrom('chat', batch.id, parsed, req.headers);
    return store.replyCreated(res, batch, render(batch));
  }
  if (req.method === 'GET' && !id) {
    const all = store.newestFirst('chat');
    return send(res, 200, {
      object: 'list',
      ...store.page(all, query, 'after', undefined, render),
    });
  }
  const batch = store.batches.get(id!);
  if (batch?.api !== 'chat') return send(res, 404, errorReply('chat', 404, undefined, 'no such batch').body);
  if (req.method === 'POST' && action === 'cancel') {
    store.cancel(batch);
    return send(res, 200, render(batch));
  }
  store.tick(batch);
  return send(res, 200, render(batch));
};

function fileObject(file: StoredFile): Json {
  return {
    id: file.id,
    object: 'file',
    bytes: Buffer.byteLength(file.content ?? ''),
    created_at: Math.floor(file.createdAt / 1000),
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
  };
}
