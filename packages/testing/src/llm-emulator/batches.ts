import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault } from './faults.js';
import type { RecordedRequest, Reply } from './server.js';
import { errorReply, send } from './server.js';

type Json = Record<string, unknown>;
type Api = 'messages' | 'chat';

/**
 * How the emulated batches process, for tests to drive. A batch ends on its own once
 * `processingMs` have passed since it was created, checked whenever it is looked at (retrieve,
 * list, results): with the default 0 it has ended by the first look. Faults are decided per
 * request when the batch is created (inject / setRule, like sync requests); replies are computed
 * when the request is processed, in submission order, so a shared prefix is a cache write for the
 * first request and a cache read for the next ones, as in sync calls.
 */
export interface BatchControls {
  /** For batches created from now on; Infinity: only settle(), expire() or a cancel end them. */
  processingMs: number;
  /** Result lines in a shuffled order (seeded by the batch id), as providers promise nothing (default true). */
  shuffle: boolean;
  /** Processes `count` more requests of a batch; it stays in progress. */
  process(batchId: string, count: number): void;
  /** Processes what is left and ends the batch (every in-progress batch without an id). */
  settle(batchId?: string): void;
  /** Ends a batch as its 24 hours would: what was not processed expires. */
  expire(batchId: string): void;
  /** The next results download stops after `lines` lines: the connection is destroyed mid-file. */
  cutNextResults(lines: number): void;
  /**
   * The next results download pauses after `lines` lines until release() is called, so a test can
   * see the client yield results before the file was sent whole.
   */
  holdNextResults(lines: number): { release(): void };
  /**
   * The next batch created is accepted (it exists and processes like any other) but the reply to
   * the create call waits until release(): a client killed meanwhile never learns the batch's id.
   * `accepted` resolves with that id once the batch exists.
   */
  holdNextCreate(): { accepted: Promise<string>; release(): void };
  /** Lines written by the latest results download so far. */
  readonly linesSent: number;
  /** Every batch, oldest first. */
  list(): EmulatedBatchInfo[];
}

export interface EmulatedBatchInfo {
  id: string;
  api: Api;
  state: 'in_progress' | 'canceling' | 'ended';
  customIds: string[];
  metadata?: Record<string, string>;
}

interface Item {
  customId: string;
  body: Json;
  fault?: Fault;
  /** The result line, once processed. */
  line?: Json;
  /** OpenAI: whether the line goes to the error file. */
  failed?: boolean;
}

interface Batch {
  id: string;
  api: Api;
  seq: number;
  createdAt: number;
  endsAt: number;
  items: Item[];
  processed: number;
  state: 'in_progress' | 'canceling' | 'ended';
  /** OpenAI's final status. */
  end?: 'completed' | 'expired' | 'cancelled' | 'failed';
  endedAt?: number;
  cancelAt?: number;
  metadata?: Record<string, string>;
  inputFileId?: string;
  errors?: Json[];
}

interface StoredFile {
  id: string;
  purpose: string;
  filename: string;
  createdAt: number;
  /** An uploaded file's content, or a batch's output / error lines. */
  content?: string;
  batch?: { id: string; kind: 'output' | 'error' };
}

export interface BatchContext {
  url: () => string;
  record: (request: Omit<RecordedRequest, 'fault'>) => Fault | undefined;
  reply: (api: Api, body: Json, fault: Fault | undefined) => Reply;
  processingMs: number;
}

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export function createBatchEmulator(ctx: BatchContext) {
  const batches = new Map<string, Batch>();
  const files = new Map<string, StoredFile>();
  let seq = 0;
  let cutAfter: number | undefined;
  let hold: { after: number; released: Promise<void> } | undefined;
  let linesSent = 0;
  let createHold: { accepted: (batchId: string) => void; released: Promise<void> } | undefined;

  const newId = (prefix: string) => `${prefix}${(++seq).toString().padStart(6, '0')}`;

  /** Sends a create call's reply, after the hold set by holdNextCreate, if any. */
  const replyCreated = async (res: ServerResponse, batch: Batch, body: Json) => {
    const paused = createHold;
    createHold = undefined;
    if (paused) {
      paused.accepted(batch.id);
      await paused.released;
    }
    send(res, 200, body);
  };

  /** Answers one request: its result line in the batch's API format. */
  const processItem = (batch: Batch, item: Item) => {
    if (item.line) return;
    const kind = item.fault?.kind;
    if (kind === 'expired' || kind === 'canceled') {
      setNotRun(batch, item, kind);
      return;
    }
    const reply = ctx.reply(batch.api, item.body, item.fault);
    if (batch.api === 'messages') {
      item.line = {
        custom_id: item.customId,
        result:
          reply.status === 200
            ? { type: 'succeeded', message: reply.body }
            : { type: 'errored', error: reply.body },
      };
      return;
    }
    item.failed = reply.status !== 200;
    item.line = {
      id: `batch_req_${item.customId}`,
      custom_id: item.customId,
      response: { status_code: reply.status, request_id: `req_${item.customId}`, body: reply.body },
      error: null,
    };
  };

  const setNotRun = (batch: Batch, item: Item, kind: 'expired' | 'canceled') => {
    if (item.line) return;
    if (batch.api === 'messages') {
      item.line = { custom_id: item.customId, result: { type: kind } };
      return;
    }
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
  };

  const process = (batch: Batch, count: number) => {
    const until = Math.min(batch.items.length, batch.processed + count);
    for (; batch.processed < until; batch.processed++) processItem(batch, batch.items[batch.processed]!);
  };

  const finish = (batch: Batch, end: 'completed' | 'expired' | 'cancelled') => {
    if (batch.state === 'ended') return;
    if (end === 'completed') process(batch, batch.items.length);
    for (const item of batch.items) setNotRun(batch, item, end === 'expired' ? 'expired' : 'canceled');
    batch.state = 'ended';
    batch.end = end;
    batch.endedAt = Date.now();
    if (batch.api === 'chat') {
      const output = batch.items.some((i) => !i.failed);
      const errors = batch.items.some((i) => i.failed);
      if (output) addFile({ id: `file-out-${batch.id}`, batch: { id: batch.id, kind: 'output' } });
      if (errors) addFile({ id: `file-err-${batch.id}`, batch: { id: batch.id, kind: 'error' } });
    }
  };

  const addFile = (file: Omit<StoredFile, 'purpose' | 'filename' | 'createdAt'> & Partial<StoredFile>) => {
    files.set(file.id, {
      purpose: 'batch_output',
      filename: `${file.id}.jsonl`,
      createdAt: Date.now(),
      ...file,
    });
  };

  /** Time passes lazily: a batch is brought up to date whenever it is looked at. */
  const tick = (batch: Batch) => {
    if (batch.state === 'canceling') finish(batch, 'cancelled');
    else if (batch.state === 'in_progress' && Date.now() >= batch.endsAt) finish(batch, 'completed');
  };

  const create = (api: Api, items: Item[], extra: Partial<Batch> = {}): Batch => {
    const now = Date.now();
    const batch: Batch = {
      id: newId(api === 'messages' ? 'msgbatch_' : 'batch_'),
      api,
      seq,
      createdAt: now,
      endsAt: now + controls.processingMs,
      items,
      processed: 0,
      state: 'in_progress',
      ...extra,
    };
    batches.set(batch.id, batch);
    return batch;
  };

  const itemsFrom = (
    api: Api,
    batchId: string,
    requests: { customId: string; body: Json }[],
    headers: IncomingMessage['headers'],
  ) =>
    requests.map(({ customId, body }): Item => {
      const fault = ctx.record({ api, headers, body, batchId, customId });
      return { customId, body, ...(fault ? { fault } : {}) };
    });

  // ---- Anthropic Message Batches ------------------------------------------------------------

  const messageBatch = (batch: Batch): Json => {
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (batch.state !== 'ended') counts.processing = batch.items.length;
    else
      for (const item of batch.items) {
        counts[(item.line!.result as Json).type as keyof typeof counts]++;
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
      results_url: batch.state === 'ended' ? `${ctx.url()}/v1/messages/batches/${batch.id}/results` : null,
    };
  };

  const anthropic = async (
    req: IncomingMessage,
    res: ServerResponse,
    parts: string[],
    raw: Buffer,
    query: URLSearchParams,
  ) => {
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
      const batch = create('messages', []);
      batch.items = itemsFrom(
        'messages',
        batch.id,
        requests.map((r) => ({ customId: r.custom_id, body: r.params })),
        req.headers,
      );
      return replyCreated(res, batch, messageBatch(batch));
    }
    if (req.method === 'GET' && !id) {
      const all = newestFirst('messages');
      return send(
        res,
        200,
        page(all, query, 'after_id', 'before_id', (b) => messageBatch(b)),
      );
    }
    const batch = batches.get(id!);
    if (batch?.api !== 'messages')
      return send(res, 404, errorReply('messages', 404, undefined, 'not found').body);
    if (req.method === 'POST' && action === 'cancel') {
      cancel(batch);
      return send(res, 200, messageBatch(batch));
    }
    tick(batch);
    if (action === 'results') {
      if (batch.state !== 'ended')
        return send(res, 400, errorReply('messages', 400, undefined, 'not ended').body);
      return streamLines(res, batch, batch.items);
    }
    return send(res, 200, messageBatch(batch));
  };

  // ---- OpenAI Batch and Files ---------------------------------------------------------------

  const openaiBatch = (batch: Batch): Json => {
    const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.floor(ms / 1000));
    const status =
      batch.state === 'ended' ? batch.end : batch.state === 'canceling' ? 'cancelling' : 'in_progress';
    const done = batch.items.filter((i) => i.line);
    const failed = done.filter((i) => i.failed && (i.line!.response as Json | null) !== null).length;
    const output = files.get(`file-out-${batch.id}`);
    const errors = files.get(`file-err-${batch.id}`);
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
      output_file_id: output?.id ?? null,
      error_file_id: errors?.id ?? null,
      errors: batch.errors ? { object: 'list', data: batch.errors } : null,
      metadata: batch.metadata ?? null,
      request_counts: {
        total: batch.items.length,
        completed: done.filter((i) => !i.failed).length,
        failed,
      },
    };
  };

  const openaiFiles = async (req: IncomingMessage, res: ServerResponse, parts: string[], raw: Buffer) => {
    const [id, action] = parts;
    if (req.method === 'POST' && !id) {
      const form = await new Response(new Uint8Array(raw), {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      const file = form.get('file') as File;
      const stored: StoredFile = {
        id: newId('file-'),
        purpose: String(form.get('purpose')),
        filename: file.name,
        createdAt: Date.now(),
        content: await file.text(),
      };
      files.set(stored.id, stored);
      return send(res, 200, fileObject(stored));
    }
    const file = files.get(id!);
    if (!file) return send(res, 404, errorReply('chat', 404, undefined, 'no such file').body);
    if (action !== 'content') return send(res, 200, fileObject(file));
    if (!file.batch) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(file.content);
    }
    const batch = batches.get(file.batch.id)!;
    const failed = file.batch.kind === 'error';
    return streamLines(
      res,
      batch,
      batch.items.filter((i) => Boolean(i.failed) === failed),
    );
  };

  const openai = async (
    req: IncomingMessage,
    res: ServerResponse,
    parts: string[],
    raw: Buffer,
    query: URLSearchParams,
  ) => {
    const [id, action] = parts;
    if (req.method === 'POST' && !id) {
      const body = JSON.parse(raw.toString('utf8')) as {
        input_file_id: string;
        endpoint: string;
        metadata?: Record<string, string>;
      };
      const input = files.get(body.input_file_id);
      if (!input?.content || input.purpose !== 'batch') {
        return send(res, 400, errorReply('chat', 400, undefined, 'input_file_id: no batch input file').body);
      }
      const batch = create('chat', [], {
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
      } else batch.items = itemsFrom('chat', batch.id, parsed, req.headers);
      return replyCreated(res, batch, openaiBatch(batch));
    }
    if (req.method === 'GET' && !id) {
      const all = newestFirst('chat');
      return send(res, 200, {
        object: 'list',
        ...page(all, query, 'after', undefined, (b) => openaiBatch(b)),
      });
    }
    const batch = batches.get(id!);
    if (batch?.api !== 'chat')
      return send(res, 404, errorReply('chat', 404, undefined, 'no such batch').body);
    if (req.method === 'POST' && action === 'cancel') {
      cancel(batch);
      return send(res, 200, openaiBatch(batch));
    }
    tick(batch);
    return send(res, 200, openaiBatch(batch));
  };

  // ---- shared ------------------------------------------------------------------------------

  /** A cancel request: an in-progress batch goes to canceling, then ends (both APIs). */
  const cancel = (batch: Batch): void => {
    tick(batch);
    if (batch.state === 'in_progress') {
      batch.state = 'canceling';
      batch.cancelAt = Date.now();
    }
  };

  const newestFirst = (api: Api): Batch[] => {
    const all = [...batches.values()].filter((b) => b.api === api).sort((a, b) => b.seq - a.seq);
    for (const batch of all) tick(batch);
    return all;
  };

  /** One page of a newest-first list, with Anthropic's and OpenAI's cursor fields. */
  const page = (
    all: Batch[],
    query: URLSearchParams,
    afterKey: string,
    beforeKey: string | undefined,
    render: (b: Batch) => Json,
  ): Json => {
    const limit = Number(query.get('limit') ?? 20);
    const after = query.get(afterKey);
    const before = beforeKey && query.get(beforeKey);
    let start = 0;
    let end = all.length;
    if (after) start = all.findIndex((b) => b.id === after) + 1;
    if (before) end = all.findIndex((b) => b.id === before);
    const slice = before ? all.slice(Math.max(0, end - limit), end) : all.slice(start, start + limit);
    const more = before ? end - limit > 0 : start + limit < all.length;
    return {
      data: slice.map(render),
      has_more: more,
      first_id: slice[0]?.id ?? null,
      last_id: slice.at(-1)?.id ?? null,
    };
  };

  /**
   * Writes result lines one at a time, honouring backpressure, in shuffled order unless told
   * otherwise; a cut destroys the connection mid-file, a hold pauses it.
   */
  const streamLines = async (res: ServerResponse, batch: Batch, items: Item[]) => {
    const order = controls.shuffle ? shuffled(items, batch.id) : items;
    const cut = cutAfter;
    const paused = hold;
    cutAfter = undefined;
    hold = undefined;
    linesSent = 0;
    res.writeHead(200, { 'content-type': 'application/binary' });
    for (const item of order) {
      if (cut !== undefined && linesSent >= cut) {
        res.socket?.destroy();
        return;
      }
      if (paused && linesSent === paused.after) await paused.released;
      if (res.destroyed) return;
      const flushed = new Promise<void>((resolve) =>
        res.write(`${JSON.stringify(item.line)}\n`, () => resolve()),
      );
      linesSent++;
      await flushed;
    }
    res.end();
  };

  const controls: BatchControls = {
    processingMs: ctx.processingMs,
    shuffle: true,
    process: (batchId, count) => {
      const batch = batches.get(batchId);
      if (batch?.state === 'in_progress') process(batch, count);
    },
    settle: (batchId) => {
      for (const batch of batchId ? [batches.get(batchId)] : [...batches.values()]) {
        if (batch && batch.state !== 'ended')
          finish(batch, batch.state === 'canceling' ? 'cancelled' : 'completed');
      }
    },
    expire: (batchId) => {
      const batch = batches.get(batchId);
      if (batch) finish(batch, 'expired');
    },
    cutNextResults: (lines) => {
      cutAfter = lines;
    },
    holdNextResults: (lines) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      hold = { after: lines, released };
      return { release };
    },
    holdNextCreate: () => {
      let release!: () => void;
      let accepted!: (batchId: string) => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const acceptedId = new Promise<string>((resolve) => {
        accepted = resolve;
      });
      createHold = { accepted, released };
      return { accepted: acceptedId, release };
    },
    get linesSent() {
      return linesSent;
    },
    list: () =>
      [...batches.values()].map((b) => ({
        id: b.id,
        api: b.api,
        state: b.state,
        customIds: b.items.map((i) => i.customId),
        ...(b.metadata ? { metadata: b.metadata } : {}),
      })),
  };

  /** Serves the batch and file endpoints; false for any other path. */
  const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname;
    const under = (prefix: string) => path.slice(prefix.length).split('/').filter(Boolean);
    if (path.startsWith('/v1/messages/batches')) {
      await anthropic(req, res, under('/v1/messages/batches'), raw, url.searchParams);
      return true;
    }
    if (path.startsWith('/v1/batches')) {
      await openai(req, res, under('/v1/batches'), raw, url.searchParams);
      return true;
    }
    if (path.startsWith('/v1/files')) {
      await openaiFiles(req, res, under('/v1/files'), raw);
      return true;
    }
    return false;
  };

  return { handle, controls };
}

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

/** A deterministic shuffle (seeded by the batch id), so a failing test fails the same way again. */
function shuffled<T>(items: T[], seed: string): T[] {
  const out = [...items];
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
