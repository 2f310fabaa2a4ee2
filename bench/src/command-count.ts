import type { Connection } from 'mongoose';

/**
 * What one kind of MongoDB command cost: how many were sent, the documents the server returned
 * (cursor batches, a findAndModify's document) and wrote (`n` of an insert, update or delete), and
 * the bytes of the commands as BSON (sent) and of their replies (received).
 */
export interface CommandCost {
  commands: number;
  /** Documents returned: a cursor's batches (find, aggregate, getMore), a findAndModify's document. */
  returned: number;
  /** Documents matched by a write (insert, update, delete: the reply's `n`). */
  written: number;
  bytesSent: number;
  bytesReceived: number;
}

/**
 * Commands counted by kind: `<command> <collection> <filter shape>`, e.g.
 * `find memories memoryId:$in` (the shape names the filter's top-level fields and their first
 * operator: it says which index the query can use). A getMore carries the shape of the find or
 * aggregate whose cursor it reads.
 */
export interface CommandCounts extends CommandCost {
  byKind: Record<string, CommandCost>;
}

const ZERO: CommandCost = { commands: 0, returned: 0, written: 0, bytesSent: 0, bytesReceived: 0 };

/** The connection string with the driver's command monitoring on (a URI option of the driver). */
export function withCommandMonitoring(uri: string): string {
  const url = new URL(uri);
  url.searchParams.set('monitorCommands', 'true');
  return url.toString();
}

type Doc = Record<string, unknown>;

/** The filter's top-level fields, each with its first operator: `memoryId:$in,state:$in`. */
export function filterShape(filter: unknown): string {
  if (!filter || typeof filter !== 'object') return '-';
  const fields = Object.entries(filter as Doc).map(([key, value]) => {
    if (key === '$or' && Array.isArray(value)) return `$or[${filterShape(value[0])}]`;
    const op =
      value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
        ? Object.keys(value).find((k) => k.startsWith('$'))
        : undefined;
    return op ? `${key}:${op}` : key;
  });
  return fields.length ? fields.sort().join(',') : '{}';
}

/** The filter a command selects documents with (the first one of a multi-statement write). */
function commandFilter(name: string, command: Doc): unknown {
  const first = (list: unknown, key: string) => (Array.isArray(list) ? (list[0] as Doc)?.[key] : undefined);
  switch (name) {
    case 'find':
    case 'count':
    case 'distinct':
      return command.filter ?? command.query;
    case 'findAndModify':
      return command.query;
    case 'update':
      return first(command.updates, 'q');
    case 'delete':
      return first(command.deletes, 'q');
    case 'aggregate': {
      const match = Array.isArray(command.pipeline) ? (command.pipeline[0] as Doc)?.$match : undefined;
      return match ?? {};
    }
    default:
      return undefined;
  }
}

interface Started {
  kind: string;
  bytes: number;
  /** A getMore's cursor, forgotten once exhausted. */
  cursor?: string;
  /** A find's projection, which the embedded server ignores (see projected). */
  projection?: Doc;
}

/**
 * A document as MongoDB returns it under a find's projection: the listed paths only (with `_id`
 * unless excluded), or all but the excluded ones; a path through an array applies to each element.
 * The embedded wire server ignores a find's projection and sends whole documents (docs/benchmarks.md);
 * the bytes received are counted as MongoDB would send them, so a projection shows in the figures.
 */
export function projected(doc: Doc, projection: Doc): Doc {
  const entries = Object.entries(projection);
  const including = entries.some(([path, v]) => path !== '_id' && Boolean(v));
  if (!including) {
    const out = structuredClone(doc);
    for (const [path] of entries) removePath(out, path.split('.'));
    return out;
  }
  const out: Doc = {};
  if (projection._id !== 0 && projection._id !== false && '_id' in doc) out._id = doc._id;
  for (const [path, v] of entries) if (v && path !== '_id') copyPath(doc, out, path.split('.'));
  return out;
}

function copyPath(from: unknown, to: Doc, path: string[]): void {
  if (!from || typeof from !== 'object' || Array.isArray(from)) return;
  const [head, ...rest] = path as [string, ...string[]];
  const value = (from as Doc)[head];
  if (value === undefined) return;
  if (rest.length === 0 || value === null || typeof value !== 'object' || value instanceof Date) {
    if (rest.length === 0) to[head] = value;
    return;
  }
  if (Array.isArray(value)) {
    const list = (Array.isArray(to[head]) ? to[head] : value.map(() => ({}))) as Doc[];
    for (const [i, item] of value.entries()) copyPath(item, list[i]!, rest);
    to[head] = list;
    return;
  }
  const inner = (to[head] ?? {}) as Doc;
  copyPath(value, inner, rest);
  to[head] = inner;
}

function removePath(doc: unknown, path: string[]): void {
  if (!doc || typeof doc !== 'object') return;
  if (Array.isArray(doc)) {
    for (const item of doc) removePath(item, path);
    return;
  }
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) delete (doc as Doc)[head];
  else removePath((doc as Doc)[head], rest);
}

interface Sizer {
  calculateObjectSize(doc: Doc): number;
}

/**
 * Counts every command a connection's client sends, through the driver's command monitoring
 * (`commandStarted` / `commandSucceeded` / `commandFailed`). The connection must have been opened
 * with it on (withCommandMonitoring): the driver emits nothing otherwise.
 */
export class CommandCounter {
  private counts: CommandCounts = { ...ZERO, byKind: {} };
  private readonly started = new Map<number, Started>();
  /** Which find or aggregate a cursor came from, so its getMores count under the same kind. */
  private readonly cursors = new Map<string, Started>();
  private readonly bson: Sizer;
  private readonly detach: () => void;

  constructor(connection: Connection) {
    this.bson = connection.base.mongo.BSON;
    const client = connection.getClient();
    const onStarted = (event: { requestId: number; commandName: string; command: Doc }) =>
      this.onStarted(event);
    const onSucceeded = (event: { requestId: number; reply: unknown }) =>
      this.onEnded(event.requestId, event.reply);
    const onFailed = (event: { requestId: number }) => this.onEnded(event.requestId, undefined);
    client.on('commandStarted', onStarted);
    client.on('commandSucceeded', onSucceeded);
    client.on('commandFailed', onFailed);
    this.detach = () => {
      client.off('commandStarted', onStarted);
      client.off('commandSucceeded', onSucceeded);
      client.off('commandFailed', onFailed);
    };
  }

  private onStarted(event: { requestId: number; commandName: string; command: Doc }): void {
    const name = event.commandName;
    const command = event.command;
    let kind: string;
    let cursor: string | undefined;
    let projection = name === 'find' ? (command.projection as Doc | undefined) : undefined;
    if (name === 'getMore') {
      cursor = String(command.getMore);
      const origin = this.cursors.get(cursor);
      kind = origin
        ? `getMore ${origin.kind.slice(origin.kind.indexOf(' ') + 1)}`
        : `getMore ${String(command.collection)}`;
      projection = origin?.projection;
    } else {
      const target = command[name];
      const collection = typeof target === 'string' ? target : '(database)';
      const filter = commandFilter(name, command);
      kind = filter === undefined ? `${name} ${collection}` : `${name} ${collection} ${filterShape(filter)}`;
    }
    this.started.set(event.requestId, {
      kind,
      bytes: this.bson.calculateObjectSize(command),
      cursor,
      ...(projection && Object.keys(projection).length && { projection }),
    });
  }

  private onEnded(requestId: number, reply: unknown): void {
    const started = this.started.get(requestId);
    if (!started) return;
    this.started.delete(requestId);
    const r = (reply ?? {}) as Doc;
    const cursor = r.cursor as { id?: unknown; firstBatch?: unknown[]; nextBatch?: unknown[] } | undefined;
    const batch = cursor?.firstBatch ?? cursor?.nextBatch;
    const id = cursor?.id === undefined ? '0' : String(cursor.id);
    if (cursor?.firstBatch && id !== '0') this.cursors.set(id, started);
    if (started.cursor && id === '0') this.cursors.delete(started.cursor);
    const returned = (batch?.length ?? 0) + (r.value && typeof r.value === 'object' ? 1 : 0);
    const written =
      started.kind.startsWith('insert') ||
      started.kind.startsWith('update') ||
      started.kind.startsWith('delete')
        ? Number(r.n ?? 0)
        : 0;
    const cost: CommandCost = {
      commands: 1,
      returned,
      written,
      bytesSent: started.bytes,
      bytesReceived: reply ? this.received(r, batch, started.projection) : 0,
    };
    add(this.counts, cost);
    this.counts.byKind[started.kind] = add({ ...(this.counts.byKind[started.kind] ?? ZERO) }, cost);
  }

  /** The reply's bytes, its documents as MongoDB would send them under the find's projection. */
  private received(reply: Doc, batch: unknown[] | undefined, projection: Doc | undefined): number {
    const size = this.bson.calculateObjectSize(reply);
    if (!projection || !batch) return size;
    const docs = batch as Doc[];
    const whole = docs.reduce((sum, doc) => sum + this.bson.calculateObjectSize(doc), 0);
    const sent = docs.reduce(
      (sum, doc) => sum + this.bson.calculateObjectSize(projected(doc, projection)),
      0,
    );
    return size - whole + sent;
  }

  /** What was counted since the start or the last take(), and counting starts again from zero. */
  take(): CommandCounts {
    const counts = this.counts;
    this.counts = { ...ZERO, byKind: {} };
    return counts;
  }

  stop(): void {
    this.detach();
  }
}

function add<T extends CommandCost>(into: T, cost: CommandCost): T {
  into.commands += cost.commands;
  into.returned += cost.returned;
  into.written += cost.written;
  into.bytesSent += cost.bytesSent;
  into.bytesReceived += cost.bytesReceived;
  return into;
}

/** The sum of several counts (kinds merged by name). */
export function sumCounts(...all: CommandCounts[]): CommandCounts {
  const total: CommandCounts = { ...ZERO, byKind: {} };
  for (const counts of all) {
    add(total, counts);
    for (const [kind, cost] of Object.entries(counts.byKind))
      total.byKind[kind] = add({ ...(total.byKind[kind] ?? ZERO) }, cost);
  }
  return total;
}

/** Each figure divided by n (per memory), kinds included. */
export function perUnit(counts: CommandCounts, n: number): CommandCounts {
  const scale = (c: CommandCost): CommandCost => ({
    commands: c.commands / n,
    returned: c.returned / n,
    written: c.written / n,
    bytesSent: c.bytesSent / n,
    bytesReceived: c.bytesReceived / n,
  });
  return {
    ...scale(counts),
    byKind: Object.fromEntries(Object.entries(counts.byKind).map(([kind, cost]) => [kind, scale(cost)])),
  };
}
