/**
 * Faults the emulator can inject, one per request (docs/design.md §8). A request inside a batch
 * takes the same faults: a status fault makes it errored (with that status), a reply fault
 * (malformed, schema...) makes its reply bad; `expired`, `canceled` and `missing` only mean
 * something there (a sync request ignores them), and `slow` is ignored there.
 */
export type Fault =
  /** An HTTP error; 429 and 529 carry a retry-after header; message goes into the error body. */
  | {
      kind: 'status';
      status: 429 | 500 | 503 | 529 | 400 | 401;
      retryAfterSeconds?: number;
      message?: string;
    }
  /** The reply comes after delayMs, past the client's timeout. */
  | { kind: 'slow'; delayMs: number }
  /** Not JSON at all (OpenAI), or no tool call (Anthropic). */
  | { kind: 'malformed' }
  /** Valid JSON that breaks the schema: the main text is missing. */
  | { kind: 'schema' }
  /** The main text in the other language. */
  | { kind: 'wrong-language' }
  /** The main text in simplified characters (a memory in traditional ones is to stay in them). */
  | { kind: 'simplified' }
  /** A reply billed as any other but with no usage in it (some OpenAI-compatible servers). */
  | { kind: 'no-usage' }
  /** The main text far over the requested length. */
  | { kind: 'too-long' }
  /**
   * Cut off at max_tokens: Anthropic `stop_reason: "max_tokens"` with a partial tool input, OpenAI
   * `finish_reason: "length"` with the JSON cut mid-way; all of max_tokens billed as output.
   */
  | { kind: 'truncate' }
  /** The model declines: Anthropic `stop_reason: "refusal"`, OpenAI a `refusal` message and no content. */
  | { kind: 'refuse' }
  /**
   * A request of several memories (memfade's MEMORIES_PER_REQUEST): the reply leaves out the item
   * of the memory at `index` (default the last), or breaks its schema (its main text missing).
   */
  | { kind: 'drop-item'; index?: number }
  | { kind: 'break-item'; index?: number }
  /** In a batch: the request expires without being run, though the batch ends normally. */
  | { kind: 'expired' }
  /** In a batch: the request comes back canceled. */
  | { kind: 'canceled' }
  /** In a batch: the provider loses the request, and its results have no line for it at all. */
  | { kind: 'missing' }
  /** In a batch: the results file holds the request's line twice (billed once). */
  | { kind: 'duplicated' };

/** Decides a request's fault from its API, its position among all requests, and its JSON body. */
// biome-ignore lint/suspicious/noExplicitAny: a wire request body, as the SDK sent it
export type FaultRule = (request: { api: string; index: number; body: any }) => Fault | undefined;
