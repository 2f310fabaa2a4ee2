/** The interfaces the pipeline needs from the outside world; adapters live in ai, db and vector. */
import type {
  HistoryEntry,
  Language,
  LastError,
  RoleCard,
  Stage,
  TargetStage,
  Usage,
  V1Fields,
  V1Result,
  V2Draft,
  V2Fields,
  V2Result,
} from './memory.js';

export interface CompressionRequest {
  memoryId: string;
  language: Language;
  /** Personality text built from the role card: part of the stable, cacheable prompt prefix. */
  personality: string;
  roleCard: RoleCard;
  /** The text to compress: one chunk of the conversation for V1, V1's content for V2. */
  text: string;
  /**
   * The memory was stored as one string: nobody is known to have said its words (issue 36), so an
   * extractive compressor attributes them to no one (no 你说 / "You said", its 我 / "I" as written).
   */
  unattributed?: boolean;
  /**
   * The roles of its turns, where it was stored as turns: each opens its lines of `text` as a label
   * ("小雨: …"), however often it occurs (a label seen once is otherwise read as text, "注意：…").
   */
  speakers?: string[];
  /** Target output length in code points. */
  targetLength: { min: number; max: number };
  /**
   * V2: the configured range before V1's length caps `targetLength` (whose minimum is then lowered
   * to leave a model some width): where V1 leaves room for it, an extractive compressor reaches it.
   */
  range?: { min: number; max: number };
  /** When the conversation took place (meta.createdAt): anchors its relative dates in the prompt. */
  createdAt?: Date;
  /**
   * The share of the text's facts the output must keep (the retention gate, RETENTION_MIN_V1/V2):
   * a model whose output keeps fewer gets its repair turn naming them (retentionFeedback).
   */
  retentionMin?: number;
  /**
   * V1 only (V2_DRAFT=with-v1): the same call also writes a V2 draft from this text, with the V2
   * instructions, this target and range (docs/design.md §4). Its retention is judged when it is
   * made V2, against V1 as V2's own is (draft.ts).
   */
  draft?: { targetLength: { min: number; max: number }; range: { min: number; max: number } };
  /** Aborted when the job's time is up: a provider cancels its HTTP call. */
  signal?: AbortSignal;
  /** Told of each paid call as its reply arrives, so the run counts it whatever happens after. */
  meter?: CallMeter;
}

/**
 * Hears of every model call a provider was paid for, as its reply arrives (docs/design.md
 * invariant 9: every paid call is counted whatever happens after it: a follow-up call or a write
 * that fails, a job retried). The provider calls it before it looks at the reply.
 */
export interface CallMeter {
  /**
   * Before a call is sent: it counts as unanswered, at what it can cost at most, until its reply is
   * counted. A call whose reply never comes (a timeout, a dropped connection, an abort, or the
   * worker killed mid-call) stays so: the provider may have billed it, and nobody can say how much
   * (docs/design.md invariants 9 and 14).
   */
  sending(ceiling: CallCeiling, model: string): Promise<void>;
  /** Its reply arrived: what it billed is counted, and it is no longer unanswered. */
  billed(usage: Usage, model: string, ceiling: CallCeiling): Promise<void>;
  /** An error reply (an HTTP status): nothing was billed, and it is no longer unanswered. */
  refused(ceiling: CallCeiling, model: string): Promise<void>;
}

/**
 * What one model call can cost at most (docs/design.md invariant 14): its input, estimated from the
 * prompt it sends with headroom, and its max_tokens as output (what a reply cut off there bills).
 */
export interface CallCeiling {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelReply<T> {
  fields: T;
  /** The V2 draft, when the request asked for one (CompressionRequest.draft). */
  draft?: V2Fields;
  usage: Usage;
  model: string;
  promptVersion: string;
}

/** One model provider (anthropic, openai-compatible, offline) behind one interface. */
export interface Compressor {
  readonly name: string;
  /**
   * Its stages are the conversation's own words (the offline compressor): the faithfulness gate
   * checks each against what was said (faithfulness.ts). A model paraphrases, and is not checked so.
   */
  readonly extractive?: boolean;
  compressV1(request: CompressionRequest): Promise<ModelReply<V1Fields>>;
  compressV2(request: CompressionRequest): Promise<ModelReply<V2Fields>>;
  /**
   * Every call one stage of one request may make, at what each can cost at most, the first call
   * first (a truncation retry and a repair turn after it); none for a compressor nobody bills.
   */
  ceilings?(stage: TargetStage, request: CompressionRequest): CallCeiling[];
}

export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<number[][]>;
}

export interface VectorRecord {
  id: string;
  userId: string;
  partnerId: string;
  stage: Stage;
  text: string;
  vector: number[];
  embeddingModel: string;
  updatedAt: Date;
  /**
   * The memory's `rev` the record was made from. An upsert never replaces a record of a higher rev:
   * two workers syncing the same memory can finish in either order, and the newer stage must win.
   */
  rev: number;
}

export interface VectorStore {
  /** Inserts records, or replaces those of the same id and a lower or equal rev, in one batch. */
  upsert(records: VectorRecord[]): Promise<void>;
  /**
   * The records of these ids as committed now, whoever wrote them: a caller compares them with the
   * memories it has just read (the erasure sweep, forget's check), so a cached view would not do.
   */
  get(ids: string[]): Promise<VectorRecord[]>;
  count(): Promise<number>;
  search(vector: number[], options: { userId?: string; limit: number }): Promise<VectorRecord[]>;
  /** Removes the records of these memories (erasure); resolves to how many existed and were removed. */
  delete(ids: string[]): Promise<number>;
  /**
   * Removes each record only while it still holds the text it was read with (the erasure sweep's
   * outdated records): one a drain has written since, with the memory's current text, stays.
   * Resolves to how many were removed.
   */
  deleteUnchanged(records: Pick<VectorRecord, 'id' | 'text'>[]): Promise<number>;
  /** Removes every record of one user (`memfade forget --user`); resolves to how many were removed. */
  deleteByUser(userId: string): Promise<number>;
  /**
   * One page of stored ids in binary (UTF-8 byte) order, starting after `after`, at most `limit`
   * (default 1000), optionally one user's: a sweep walks millions of records page by page. The
   * order is the same in every adapter, so a page boundary means the same thing everywhere.
   */
  listIds(options?: ListIdsOptions): Promise<string[]>;
  /**
   * Removes what the store still keeps of records deleted before (erasure, docs/design.md invariant 8): a
   * delete may only hide a record, and older versions of the store may still hold it (LanceDB). The
   * caller holds the vector write lock where the store has one (a write in flight could lose its
   * files). What the server's own retention keeps beyond memfade's reach (a WAL, an oplog, backups)
   * is said in `kept`.
   */
  purgeDeleted(): Promise<DeletedPurge>;
  close(): Promise<void>;
}

/** What purgeDeleted did: one line each, for `memfade forget`'s receipt. */
export interface DeletedPurge {
  /** What was removed, e.g. '6 older table versions (52 KB of files)'. */
  removed: string;
  /** What could not be removed now, and what removes it later (e.g. autovacuum). */
  pending?: string;
  /** What the store's own retention still keeps of deleted records, and for how long. */
  kept?: string;
}

export interface ListIdsOptions {
  userId?: string;
  /** Only ids after this one (the last id of the previous page). */
  after?: string;
  limit?: number;
}

export interface StageTransition {
  memoryId: string;
  expectedStage: Stage;
  expectedRev: number;
  stage: TargetStage;
  result: V1Result | V2Result;
  /** V1 with V2_DRAFT=with-v1: the V2 draft written with it; any other transition removes the draft. */
  draft?: V2Draft;
  /**
   * The complete history after this transition. Written whole under the revision guard, which
   * makes it as safe as an append (and the MongoDB-wire test server has no $push).
   */
  history: HistoryEntry[];
  /** The memory's searchable text after this transition (for the vector outbox). */
  searchText: string;
  /**
   * The memory document as the job read it. The write applies only while the product's input in
   * it (the content the stage was computed from) is unchanged: an edit or a redaction made while
   * the model was working leaves no stale stage behind (docs/design.md invariant 7).
   */
  asRead: Record<string, unknown>;
}

/** Takes a memory whose stages were computed from content the product has since changed back to raw. */
export interface StaleStagesDiscard {
  memoryId: string;
  expectedStage: Stage;
  expectedRev: number;
  /** The document as read: the discard applies only if its content is still the one read. */
  asRead: Record<string, unknown>;
  /** The memory's searchable text once its stages are gone (for the vector outbox). */
  searchText: string;
  at: Date;
}

/** What the pipeline needs from the memory database. */
export interface MemoryStore {
  /** The stored memory as-is (not validated yet), or null when there is none. */
  loadMemory(memoryId: string): Promise<Record<string, unknown> | null>;
  /**
   * The role card of the memory's user and partner (the store keys cards by either or both: a
   * product may have one card per partner).
   */
  loadRoleCard(userId: string, partnerId: string): Promise<Record<string, unknown> | null>;
  /** One conditional write; false when the memory is no longer at (expectedStage, expectedRev). */
  applyTransition(transition: StageTransition): Promise<boolean>;
  /**
   * One conditional write, like applyTransition: the memory goes back to raw, and every result
   * derived from its old content (stages, rolled-back stages) is deleted, not kept: it may hold
   * text the user removed. The history entries move to `compression.discarded` (they hold no
   * text). False when the memory is no longer as read.
   */
  discardStaleStages(discard: StaleStagesDiscard): Promise<boolean>;
  /** Records why a memory failed, without touching anything else on it. */
  recordError(memoryId: string, error: LastError): Promise<void>;
  /** The product's name of a field of the canonical memory (its mapping's path), for bad input errors. */
  fieldName(field: string): string;
}

/** The memory store of batch mode, which also reads a chunk of a round's memories in one query. */
export interface BatchMemoryStore extends MemoryStore {
  /** Each memory found, as loadMemory returns it, keyed by its id; a memory not found is absent. */
  loadMemories(memoryIds: string[]): Promise<Map<string, Record<string, unknown>>>;
  /**
   * Several stage transitions, each exactly as conditional as applyTransition, sent together (a
   * chunk of a batch's results). True where the memory now holds the transition: written by this
   * call, or by an identical one of the same run (another poller of the same results). A memory
   * written here and taken back to raw before a store that cannot tell which writes applied reads
   * it again reads as false: its request is settled from the memory as it is (at worst a stage
   * written and at once discarded is counted as a no-op, never as two).
   */
  applyTransitions(transitions: StageTransition[]): Promise<boolean[]>;
}

/**
 * Runs work while no other process of the fleet runs work under the same lock (a Redis lock in
 * production): how writers of a store that cannot merge concurrent writes take turns.
 */
export type Exclusive = <T>(work: () => Promise<T>) => Promise<T>;

/** One request of a batch: a stage of one memory, under an id unique in its run. */
export interface BatchItem {
  customId: string;
  stage: TargetStage;
  request: CompressionRequest;
}

/**
 * Several memories of one user, language, role card and stage in one request
 * (MEMORIES_PER_REQUEST, docs/batch-mode.md): the shared prefix once, each memory labelled with its
 * memory id. `customId` is the line's (its first member's when it was formed).
 */
export interface BatchGroup {
  customId: string;
  members: BatchItem[];
}

/** One request line of a batch: one memory's request, or a group's. */
export type BatchLine = BatchItem | BatchGroup;

export const isGroup = (line: BatchLine): line is BatchGroup => 'members' in line;

/**
 * One line of a batch's results. `turn` is the provider's reply, handed back to accept() as is.
 * `usageMissing`: the line said nothing of its usage (some OpenAI-compatible servers), `usage` is
 * zero, and the run counts the line at the ceiling recorded when it was prepared (docs/design.md
 * invariant 14), never as free.
 */
export type BatchItemResult =
  | { customId: string; outcome: 'succeeded'; turn: unknown; usage: Usage; usageMissing?: true }
  | {
      customId: string;
      outcome: 'errored' | 'canceled' | 'expired';
      retryable: boolean;
      message: string;
      /**
       * A member of a group line that was paid for but held no usable item for it (missing, broken,
       * cut at max_tokens): its share of the line's tokens, counted with the memory.
       */
      usage?: Usage;
      usageMissing?: true;
    };

/** A member of a group line, as its result is split out (BatchCompressor.memberResults). */
export interface GroupMember {
  customId: string;
  memoryId: string;
  stage: TargetStage;
}

/**
 * A provider's batch API as batch mode uses it (ai implements it over its BatchClient): the same
 * prompts as the sync Compressor, and the same validation and one repair call for each reply.
 */
export interface BatchCompressor {
  readonly name: string;
  readonly model: string;
  /** The provider's limit of requests per batch. */
  readonly maxRequests: number;
  /** A valid custom id for the provider, naming the run and round (found again after a crash). */
  customId(label: { runId: string; round: number }, key: string): string;
  /** Splits items into batches under the provider's limits and `maxRequests` (0 = the provider's). */
  split(lines: BatchLine[], maxRequests: number): BatchLine[][];
  submit(lines: BatchLine[], label: { runId: string; round: number }): Promise<{ batchId: string }>;
  /**
   * Whether these requests fit one group line: its output budget (the members' budgets summed)
   * within the model's max_tokens ceiling.
   */
  fitsOneLine(items: BatchItem[]): boolean;
  /**
   * A group line's result as one result per member, in `members`' order: an item that passes its
   * stage's schema is a succeeded reply of its own (checked by accept() like any); a member whose
   * item is missing or broken, or all of them when the line was cut off, refused or unreadable, is
   * errored and retryable, with its share of the line's tokens. A failed line fails each member.
   * The line's usage is split among its members so that the shares add up to it exactly.
   */
  memberResults(line: BatchItemResult, members: GroupMember[]): BatchItemResult[];
  /**
   * A batch the provider already accepted for this label since `since` holding `count` requests and
   * not among `known`: a submit whose id was never recorded (the worker died in between).
   */
  findSubmitted(
    label: { runId: string; round: number },
    since: Date,
    count: number,
    known: string[],
  ): Promise<string | undefined>;
  /** `failure` is set when the whole batch failed without result lines. */
  status(batchId: string): Promise<{ ended: boolean; failure?: string }>;
  cancel(batchId: string): Promise<void>;
  results(batchId: string): AsyncIterable<BatchItemResult>;
  /**
   * Removes the provider's copies of a batch, which hold memory text (docs/design.md invariant 8): its
   * input, output and error files (OpenAI), the batch with its requests and results (Anthropic). A
   * batch not ended yet cannot be deleted: it is canceled and `pending` says so; call again once it
   * has ended. Copies already gone count as removed, so a second call is harmless.
   */
  deleteBatch(batchId: string): Promise<BatchDeletion>;
  /**
   * Deletes what these runs uploaded that no batch reads: an input file uploaded by a submit that
   * died before it created its batch (OpenAI; Anthropic uploads no file). What it removed.
   */
  deleteOrphanFiles(runIds: string[]): Promise<string[]>;
  /** The calls of a stage's request at most (Compressor.ceilings): the first is its batch line. */
  ceilings(stage: TargetStage, request: CompressionRequest): CallCeiling[];
  /**
   * Validates a succeeded reply exactly like a sync reply; on a problem makes the one repair call,
   * synchronously; throws InvalidModelOutputError when it still fails. Usage is the two calls'.
   */
  accept(
    stage: TargetStage,
    request: CompressionRequest,
    turn: unknown,
  ): Promise<ModelReply<V1Fields | V2Fields>>;
}

/**
 * What erasure needs of a provider's batch API (docs/design.md invariant 8): look, cancel, delete; no
 * submit, no model call. `memfade forget` builds one only when a batch at the provider holds the target.
 */
export type BatchEraser = Pick<BatchCompressor, 'status' | 'cancel' | 'deleteBatch' | 'deleteOrphanFiles'>;

/** What deleteBatch removed at the provider, and what it could not remove yet. */
export interface BatchDeletion {
  /** What the provider no longer holds, e.g. 'input file file-abc', 'output file file-def'. */
  removed: string[];
  /** Why something is not deleted yet, e.g. the batch is still canceling: call deleteBatch again later. */
  pending?: string;
}
