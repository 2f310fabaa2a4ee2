// What tests see of the emulated batches (batch-store.ts keeps them): how they process, and what is held.

/** The two providers' batch APIs, by the sync endpoint their requests go to. */
export type Api = 'messages' | 'chat';

/**
 * How the emulated batches process, for tests to drive. A batch ends on its own once
 * `processingMs` have passed since it was created, checked whenever it is looked at (retrieve,
 * list, results): with the default 0 it has ended by the first look. Faults are decided per
 * request when the batch is created (inject / setRule, like sync requests); replies are computed
 * when the request is processed, in submission order, so a shared prefix is a cache write for the
 * first request and can be a cache read for the next ones; with a real model name a read is
 * best-effort, as the providers say (LlmEmulatorOptions.batchCacheHitRate, cache-rules.ts).
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
  /**
   * Bytes of filler in every result line served from now on (default 0), or in each line by its
   * custom id, in a property no SDK or memfade reads (result-lines.ts): a results file, or a single
   * line, far bigger than the client's memory, which the emulator streams without ever holding it.
   */
  linePadding: number | ((customId: string) => number);
  /** Bytes of results files served so far (both APIs): in all, and the largest single download. */
  readonly resultBytes: { total: number; largest: number };
  /** Every batch, oldest first (a deleted Anthropic batch is gone from it). */
  list(): EmulatedBatchInfo[];
  /**
   * Everything the emulated providers still hold for batches, as text (JSON as on the wire): OpenAI's
   * uploaded files and its batches' output and error files, Anthropic's batches with their requests
   * and results. What a deletion removed is not in it, so a test can assert a memory's text is gone.
   * (The requests the emulator recorded for tests, `LlmEmulator.requests`, are not the provider's.)
   */
  storedText(): string;
}

export interface EmulatedBatchInfo {
  id: string;
  api: Api;
  state: 'in_progress' | 'canceling' | 'ended';
  customIds: string[];
  metadata?: Record<string, string>;
}
