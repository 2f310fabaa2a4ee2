import type { BatchCompressor, BatchItem, BatchItemResult, BatchLine, TargetStage } from '@memfade/core';
import type { BatchRequestRecord, BatchRequestUpdate } from '@memfade/db';
import type { BatchDeps } from './batch-requests.js';

/**
 * Several memories per request line (MEMORIES_PER_REQUEST, docs/batch-mode.md): the submit job reads
 * a round in user order and hands each built request here; consecutive requests of one user,
 * stage, language, reply kind and role card (one stable prompt prefix) become one line of up to
 * `perRequest` memories, as long as the line's output budget fits the model's max_tokens. A request
 * retried after its group did not answer it goes alone. A request recorded in a line already (a
 * submit retried after a crash) stays in that line, so the line's result still finds it.
 */

/** A request built by the submit job: its record, its item, and what recording it prepared sets. */
export interface Built {
  record: BatchRequestRecord;
  item: BatchItem;
  set: BatchRequestUpdate;
}

/** A line ready to send, with its requests (each record's update says which line carries it). */
export interface ClosedLine {
  line: BatchLine;
  built: Built[];
}

/** What a request shares with the others of its line: its user and the whole prompt prefix. */
function groupKey({ record, item }: Built): string | undefined {
  if (record.alone || !record.userId) return undefined;
  const { request, stage } = item;
  const kind = stage === 'v1' && request.draft ? 'pair' : stage;
  return [record.userId, stage, kind, request.language, request.personality].join('\n');
}

export class LineGrouper {
  private open: { key: string; built: Built[] } | undefined;
  /** Requests recorded in a line already (a submit retried after a crash), by line: sent in it at the end. */
  private readonly stored = new Map<string, Built[]>();

  constructor(
    private readonly perRequest: number,
    private readonly model: Pick<BatchCompressor, 'fitsOneLine'>,
  ) {}

  /** Adds a built request; returns the lines this closed. */
  add(built: Built): ClosedLine[] {
    const { line } = built.record;
    if (line) {
      this.stored.set(line, [...(this.stored.get(line) ?? []), built]);
      return [];
    }
    const key = this.perRequest > 1 ? groupKey(built) : undefined;
    if (key === undefined) return [singleLine(built)];
    const open = this.open;
    if (open?.key === key && this.model.fitsOneLine(items([...open.built, built]))) {
      open.built.push(built);
      return open.built.length >= this.perRequest ? this.close() : [];
    }
    const closed = this.close();
    this.open = { key, built: [built] };
    return closed;
  }

  /** The line still open, and at the end of the round (`all`) the stored ones too. */
  close(all = false): ClosedLine[] {
    const closed: ClosedLine[] = [];
    if (this.open)
      closed.push(this.open.built.length === 1 ? singleLine(this.open.built[0]!) : group(this.open.built));
    this.open = undefined;
    if (all) for (const [customId, built] of this.stored) closed.push(group(built, customId));
    if (all) this.stored.clear();
    return closed;
  }
}

/** A group line, named by its first request's custom id (or the one its records already name). */
function group(built: Built[], customId = built[0]!.record.customId): ClosedLine {
  const inLine = built.map((b) => ({ ...b, set: { ...b.set, line: customId } }));
  return { line: { customId, members: items(inLine) }, built: inLine };
}

const items = (built: Built[]) => built.map((b) => b.item);
/** A request as its own line. */
export const singleLine = (built: Built): ClosedLine => ({ line: built.item, built: [built] });

/**
 * A chunk of result lines as one result per request, with the requests' records: a group line
 * (MEMORIES_PER_REQUEST) is split among the records that name it (BatchCompressor.memberResults), in
 * custom-id order, so a results file read again gives each the same share.
 */
export async function perMemory(
  chunk: BatchItemResult[],
  deps: BatchDeps,
): Promise<{ lines: BatchItemResult[]; records: Map<string, BatchRequestRecord> }> {
  const records = await deps.batches.requestsById(chunk.map((line) => line.customId));
  const groups = chunk.filter((line) => records.get(line.customId)?.line === line.customId);
  if (groups.length === 0) return { lines: chunk, records };
  const members = new Map<string, BatchRequestRecord[]>();
  for (const record of await deps.batches.requestsByLine(groups.map((line) => line.customId))) {
    records.set(record.customId, record);
    members.set(record.line!, [...(members.get(record.line!) ?? []), record]);
  }
  const lines = chunk.flatMap((line) => {
    if (!groups.includes(line)) return [line];
    const group = (members.get(line.customId) ?? []).sort((a, b) => (a.customId < b.customId ? -1 : 1));
    return deps.model.memberResults(
      line,
      group.map((m) => ({
        customId: m.customId,
        memoryId: m.memoryId,
        stage: m.stage ?? (m.target as TargetStage),
      })),
    );
  });
  return { lines, records };
}
