import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Api, BatchControls } from './batch-controls.js';
import type { Fault } from './faults.js';
import { shuffled, writeLine } from './result-lines.js';
import { type RecordedRequest, type Reply, send } from './wire.js';

/**
 * The emulated batches of both providers: their lifecycle (created, processed in submission order,
 * ended, canceled, expired), the files OpenAI's batches read and write, listing, and streaming result
 * lines. What a line looks like is each provider's (anthropic-batches.ts, openai-batches.ts).
 */

export type Json = Record<string, unknown>;

export interface Item {
  customId: string;
  body: Json;
  fault?: Fault;
  /** The result line, once processed. */
  line?: Json;
  /** OpenAI: whether the line goes to the error file. */
  failed?: boolean;
  /** Lost by the provider (a `missing` fault): processed, and no result line ever. */
  missing?: boolean;
}

export interface Batch {
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
  /** OpenAI: the files an ended batch wrote; the ids stay on the batch after the files are deleted. */
  outputFileId?: string;
  errorFileId?: string;
  errors?: Json[];
}

export interface StoredFile {
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

/** What a provider's result lines look like, and what it does when one of its batches ends. */
export interface LineFormat {
  /** The processed request's result line, from the reply the sync endpoint would give. */
  result(item: Item, reply: Reply): void;
  /** The line of a request that never ran. */
  notRun(item: Item, kind: 'expired' | 'canceled'): void;
  ended?(batch: Batch, store: BatchStore): void;
}

export type BatchStore = ReturnType<typeof createBatchStore>;

/** Serves one provider's batch endpoints; `parts` is the path after the endpoint's prefix. */
export type BatchEndpoint = (
  store: BatchStore,
  req: IncomingMessage,
  res: ServerResponse,
  parts: string[],
  raw: Buffer,
  query: URLSearchParams,
) => Promise<void>;

export function createBatchStore(ctx: BatchContext, formats: Record<Api, LineFormat>) {
  const batches = new Map<string, Batch>();
  const files = new Map<string, StoredFile>();
  let seq = 0;
  let cutAfter: number | undefined;
  let hold: { after: number; released: Promise<void> } | undefined;
  let linesSent = 0;
  const resultBytes = { total: 0, largest: 0 };
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
    if (item.line || item.missing) return;
    const kind = item.fault?.kind;
    if (kind === 'missing') {
      item.missing = true;
      return;
    }
    if (kind === 'expired' || kind === 'canceled') return formats[batch.api].notRun(item, kind);
    formats[batch.api].result(item, ctx.reply(batch.api, item.body, item.fault));
  };

  const process = (batch: Batch, count: number) => {
    const until = Math.min(batch.items.length, batch.processed + count);
    for (; batch.processed < until; batch.processed++) processItem(batch, batch.items[batch.processed]!);
  };

  const finish = (batch: Batch, end: 'completed' | 'expired' | 'cancelled') => {
    if (batch.state === 'ended') return;
    if (end === 'completed') process(batch, batch.items.length);
    const notRun = end === 'expired' ? 'expired' : 'canceled';
    for (const item of batch.items) if (!item.line && !item.missing) formats[batch.api].notRun(item, notRun);
    batch.state = 'ended';
    batch.end = end;
    batch.endedAt = Date.now();
    formats[batch.api].ended?.(batch, store);
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
    const lines = items
      .filter((item) => item.line)
      .flatMap((item) => (item.fault?.kind === 'duplicated' ? [item, item] : [item]));
    const order = controls.shuffle ? shuffled(lines, batch.id) : lines;
    const cut = cutAfter;
    const paused = hold;
    cutAfter = undefined;
    hold = undefined;
    linesSent = 0;
    let bytes = 0;
    res.writeHead(200, { 'content-type': 'application/binary' });
    for (const item of order) {
      if (cut !== undefined && linesSent >= cut) {
        res.socket?.destroy();
        return;
      }
      if (paused && linesSent === paused.after) await paused.released;
      if (res.destroyed) return;
      linesSent++;
      const pad = controls.linePadding;
      const sent = await writeLine(res, item.line!, typeof pad === 'number' ? pad : pad(item.customId));
      bytes += sent;
      resultBytes.total += sent;
      resultBytes.largest = Math.max(resultBytes.largest, bytes);
    }
    res.end();
  };

  const controls: BatchControls = {
    processingMs: ctx.processingMs,
    shuffle: true,
    linePadding: 0,
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
    get resultBytes() {
      return { ...resultBytes };
    },
    storedText: () => {
      const held: string[] = [];
      const json = (value: unknown) => JSON.stringify(value) ?? '';
      for (const file of files.values()) {
        if (!file.batch) held.push(file.content ?? '');
        else {
          // An output or error file is served from its batch's result lines while the file exists.
          const items = batches.get(file.batch.id)?.items ?? [];
          const failed = file.batch.kind === 'error';
          for (const item of items) if (Boolean(item.failed) === failed) held.push(json(item.line));
        }
      }
      // OpenAI keeps a batch's text in its files only; Anthropic keeps it in the batch itself.
      for (const batch of batches.values())
        if (batch.api === 'messages')
          for (const item of batch.items) held.push(json(item.body), json(item.line));
      return held.join('\n');
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

  const store = {
    ctx,
    batches,
    files,
    controls,
    newId,
    replyCreated,
    addFile,
    tick,
    create,
    itemsFrom,
    cancel,
    newestFirst,
    page,
    streamLines,
  };
  return store;
}
