/**
 * What the emulated providers bill (docs/design.md §8): every successful sync call and processed
 * batch line, by price (memfade's Usage fields), whether or not anyone read the reply. Tests
 * compare it with what the runs counted, and price it against a night's budget.
 */

export interface Billed {
  sync: { calls: number; tokens: number; usage: BilledUsage };
  batch: { lines: number; tokens: number; usage: BilledUsage };
  /**
   * Replies billed (counted above) whose usage was left out of the reply (the `no-usage` fault):
   * memfade counts each at its ceiling, so what it counted may pass what was billed by them.
   */
  unreported: { replies: number; tokens: number };
}

/** Billed tokens by price (memfade's Usage fields), so a test can price what was billed. */
export interface BilledUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** A reply as the emulator sends it: only its status and usage matter here. */
interface BilledReply {
  status: number;
  body: Record<string, unknown>;
}

/** The tally, and what adds a reply to it (an error reply bills nothing). */
export function billing() {
  const none = (): BilledUsage => ({
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  });
  const billed: Billed = {
    sync: { calls: 0, tokens: 0, usage: none() },
    batch: { lines: 0, tokens: 0, usage: none() },
    unreported: { replies: 0, tokens: 0 },
  };
  /** `billedTo`: the recorded request the reply answers, which keeps what it billed (per-user tests). */
  const bill = <R extends BilledReply>(
    kind: 'sync' | 'batch',
    answer: R,
    billedTo?: { billed?: BilledUsage },
  ): R => {
    const usage = billedUsage(answer);
    if (usage === undefined) return answer;
    if (billedTo) billedTo.billed = usage;
    if (kind === 'sync') billed.sync.calls++;
    else billed.batch.lines++;
    for (const key of Object.keys(usage) as (keyof BilledUsage)[]) {
      billed[kind].usage[key] += usage[key];
      billed[kind].tokens += usage[key];
    }
    return answer;
  };

  /** Leaves a billed reply's usage out of it, and keeps what it billed apart. */
  const unreport = <R extends BilledReply>(answer: R): R => {
    const usage = billedUsage(answer);
    if (usage === undefined) return answer;
    billed.unreported.replies++;
    billed.unreported.tokens += Object.values(usage).reduce((a, b) => a + b, 0);
    delete answer.body.usage;
    return answer;
  };

  return { billed, bill, unreport };
}

/** The tokens a successful reply bills (both APIs' usage fields); undefined for an error, which bills none. */
function billedUsage(answer: BilledReply): BilledUsage | undefined {
  if (answer.status !== 200) return undefined;
  const usage = (answer.body.usage ?? {}) as Record<string, unknown>;
  const n = (key: string) => (typeof usage[key] === 'number' ? (usage[key] as number) : 0);
  // OpenAI's prompt_tokens include its cached tokens; Anthropic lists cache reads and writes apart.
  if (usage.prompt_tokens !== undefined) {
    const read = (usage.prompt_tokens_details as { cached_tokens?: number } | undefined)?.cached_tokens ?? 0;
    return {
      inputTokens: n('prompt_tokens') - read,
      outputTokens: n('completion_tokens'),
      cacheReadTokens: read,
      cacheWriteTokens: 0,
    };
  }
  return {
    inputTokens: n('input_tokens'),
    outputTokens: n('output_tokens'),
    cacheReadTokens: n('cache_read_input_tokens'),
    cacheWriteTokens: n('cache_creation_input_tokens'),
  };
}
