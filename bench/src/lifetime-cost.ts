import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createServices,
  defaultConfig,
  enqueueRun,
  type MemfadeConfig,
  startWorkerRole,
  waitForRun,
} from '@memfade/app';
import {
  addUsage,
  costOf,
  detectLanguage,
  measureLength,
  stagePolicy,
  type Usage,
  ZERO_USAGE,
} from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { type EvalConversation, loadDataset, userRoleOf } from '@memfade/eval';
import { createLogger } from '@memfade/runtime';
import { startLlmEmulator } from '@memfade/testing';
import { LIST_PRICES, naiveUsage, providerOf } from './batch-night.js';
import { SHARED_SETS } from './eval-speed.js';

/**
 * What a memory costs over its whole life (raw -> V1 on day 3 -> V2 on day 7), per 1,000 memories
 * sized like real ones: the conversations of the shared eval sets (LoCoMo sessions, MemoryBank
 * days, KdConv and DuLeMon dialogues, zh and en) as memories, through the real pipeline in this
 * process (BullMQ, the MongoDB-wire server, the model's SDK against the emulator with the model's
 * own caching rules), two nights each: day 3, then day 7. Sync and batch mode, each with
 * V2_DRAFT=separate (V1 and V2 two calls, as before) and with-v1 (one call, docs/design.md §4).
 * Naive is seed 003's: the separate life's two sync calls, every input token at the input price.
 */

const DAY = 86_400_000;
const START = new Date('2026-11-22T03:00:00Z');

export interface LifetimeOptions {
  /** Conversations taken from each shared set (the first ones; DuLeMon has 20). */
  perSet: number;
  /** Models of LIST_PRICES to price (default: every real one). */
  models?: string[];
  /** MEMORIES_PER_REQUEST of the "batch, draft, N per request" lives (none: no such column). */
  perRequest?: number[];
}

/** One life's usage, for one model, mode and draft setting. */
interface Life {
  usage: Usage;
  /** Model requests made over the two nights (batch lines and sync calls). */
  requests: number;
}

export interface LifetimeRow {
  model: string;
  /** US dollars per 1,000 memories over their life. */
  naive: number;
  sync: { separate: number; draft: number };
  batch: { separate: number; draft: number };
  /** Batch with the draft and N memories per request (MEMORIES_PER_REQUEST=N), by N. */
  grouped: Record<number, number>;
  requestsPerMemory: { separate: number; draft: number };
  /** Sync lives' tokens per memory (input counts cache reads and writes), where the money goes. */
  tokensPerMemory: { separate: { input: number; output: number }; draft: { input: number; output: number } };
}

export interface LifetimeResult {
  memories: number;
  /** The memories' lengths in characters (code points): median and mean, per language. */
  lengths: Record<string, { memories: number; median: number; mean: number }>;
  rows: LifetimeRow[];
}

/** The shared sets' first conversations, as the memories priced. */
async function conversations(perSet: number): Promise<EvalConversation[]> {
  const all: EvalConversation[] = [];
  for (const set of SHARED_SETS) all.push(...(await loadDataset(set.file, set.format)).slice(0, perSet));
  return all;
}

const textOf = (c: EvalConversation) => c.turns.map((t) => `${t.role}: ${t.text}`).join('\n');

function lengthsOf(list: EvalConversation[]): LifetimeResult['lengths'] {
  const by: Record<string, number[]> = {};
  for (const c of list) {
    const language = c.language ?? detectLanguage(textOf(c));
    by[language] = [...(by[language] ?? []), measureLength(textOf(c))];
  }
  return Object.fromEntries(
    Object.entries(by).map(([language, lengths]) => {
      const sorted = [...lengths].sort((a, b) => a - b);
      const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
      return [language, { memories: sorted.length, median: sorted[Math.floor(sorted.length / 2)]!, mean }];
    }),
  );
}

/** One life of `list` for one model, mode and draft setting: two nights on fresh services. */
async function life(
  base: MemfadeConfig,
  list: EvalConversation[],
  model: string,
  mode: 'sync' | 'batch',
  v2Draft: 'separate' | 'with-v1',
  perRequest = 1,
): Promise<Life> {
  const tag = `life-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  // An emulator of its own: its prompt cache starts empty, as a night's first request finds it.
  const emulator = await startLlmEmulator();
  const clock = new Date(START);
  const common = { model, timeoutMs: 30_000, maxTokens: 16_000 };
  const provider: MemfadeConfig['provider'] =
    providerOf(model) === 'anthropic'
      ? { provider: 'anthropic', apiKey: 'bench', baseURL: emulator.url, ...common }
      : {
          provider: 'openai',
          apiKey: 'bench',
          baseURL: `${emulator.url}/v1`,
          responseFormat: 'json_schema',
          ...common,
        };
  const defaults = defaultConfig();
  const config = defaultConfig({
    ...base,
    mongodbDb: tag,
    queuePrefix: tag,
    provider,
    prices: { [model]: LIST_PRICES[model]! },
    policy: stagePolicy({ v2Draft }),
    vector: { ...defaults.vector, dir: join(tmpdir(), `memfade-bench-${tag}`) },
    vectorSync: { ...defaults.vectorSync, enabled: false },
    batch: { ...defaults.batch, mode, minCalls: 1, pollMs: 50, perRequest },
    logLevel: 'silent',
  });
  const services = await createServices(config, {
    logger: createLogger({ level: 'silent' }),
    now: () => clock,
  });
  const threads = [...new Set(list.map((c) => c.thread ?? c.id))];
  const users = list.map((c) => `u${threads.indexOf(c.thread ?? c.id)}`);
  try {
    const docs = list.map((c, i) =>
      memoryDocument({
        memoryId: `m${i}`,
        // One user per thread (a LoCoMo sample's sessions, a MemoryBank user's days; any other
        // conversation alone): each its own role card, its own cached prefix, and a user's memories
        // due the same night are what MEMORIES_PER_REQUEST puts in one request.
        userId: users[i]!,
        partnerId: 'p',
        turns: c.turns.map((t) => ({ role: t.role === userRoleOf(c) ? 'user' : 'assistant', text: t.text })),
        createdAt: new Date(START.getTime() - 4 * DAY),
        ...(c.language && { language: c.language }),
      }),
    );
    const cards = list.map((c, i) => ({
      userId: users[i]!,
      name: c.roleCard?.name ?? 'Kai',
      ...(c.roleCard?.personality && { personality: c.roleCard.personality }),
    }));
    // One role card per user (the first of its conversations gives it).
    const firstCards = cards.filter((card, i) => users.indexOf(card.userId) === i);
    await insertMemories(services.models, docs, firstCards);
    let usage = ZERO_USAGE;
    const worker = startWorkerRole(services);
    try {
      for (const day of [0, 4]) {
        clock.setTime(START.getTime() + day * DAY);
        const runId = await enqueueRun(services, { trigger: 'manual', asOf: clock });
        const run = await waitForRun(services, runId, { timeoutMs: 30 * 60_000, pollMs: 200 });
        usage = addUsage(usage, addUsage(run.tokens.v1, run.tokens.v2));
      }
    } finally {
      await worker.close();
    }
    const requests = emulator.requests.filter((r) => r.api !== 'embeddings').length;
    return { usage, requests };
  } finally {
    await services.close();
    await emulator.close();
    await rm(join(tmpdir(), `memfade-bench-${tag}`), { recursive: true, force: true });
  }
}

export async function benchmarkLifetime(
  base: MemfadeConfig,
  options: LifetimeOptions,
): Promise<LifetimeResult> {
  const list = await conversations(options.perSet);
  const models = options.models ?? Object.keys(LIST_PRICES).filter((m) => m !== 'emulated');
  const rows: LifetimeRow[] = [];
  const per1000 = (dollars: number) => (dollars * 1000) / list.length;
  for (const model of models) {
    const price = LIST_PRICES[model]!;
    const sync = {
      separate: await life(base, list, model, 'sync', 'separate'),
      draft: await life(base, list, model, 'sync', 'with-v1'),
    };
    const batch = {
      separate: await life(base, list, model, 'batch', 'separate'),
      draft: await life(base, list, model, 'batch', 'with-v1'),
    };
    const grouped: Record<number, number> = {};
    for (const n of options.perRequest ?? []) {
      const lived = await life(base, list, model, 'batch', 'with-v1', n);
      grouped[n] = per1000(costOf(lived.usage, price, { batch: true }));
    }
    rows.push({
      model,
      naive: per1000(costOf(naiveUsage(sync.separate.usage), price)),
      sync: {
        separate: per1000(costOf(sync.separate.usage, price)),
        draft: per1000(costOf(sync.draft.usage, price)),
      },
      batch: {
        separate: per1000(costOf(batch.separate.usage, price, { batch: true })),
        draft: per1000(costOf(batch.draft.usage, price, { batch: true })),
      },
      grouped,
      requestsPerMemory: {
        separate: sync.separate.requests / list.length,
        draft: sync.draft.requests / list.length,
      },
      tokensPerMemory: {
        separate: tokensOf(sync.separate, list.length),
        draft: tokensOf(sync.draft, list.length),
      },
    });
  }
  return { memories: list.length, lengths: lengthsOf(list), rows };
}

const tokensOf = (life: Life, memories: number) => {
  const u = naiveUsage(life.usage);
  return { input: Math.round(u.inputTokens / memories), output: Math.round(u.outputTokens / memories) };
};

const usd = (dollars: number) => `$${dollars.toFixed(2)}`;
const tokens = (t: { input: number; output: number }) => `${t.input}/${t.output}`;
const pct = (share: number) => `${Math.round(share * 100)}%`;

export function lifetimeTable(r: LifetimeResult): string {
  const lengths = Object.entries(r.lengths)
    .map(([l, s]) => `${l} ${s.memories} (median ${s.median}, mean ${Math.round(s.mean)} characters)`)
    .join('; ');
  const cell = (dollars: number, naive: number) => `${usd(dollars)} (${pct(dollars / naive)})`;
  const ns = [...new Set(r.rows.flatMap((row) => Object.keys(row.grouped).map(Number)))];
  return [
    `### A memory's life (raw -> V1 -> V2), per 1,000 memories of real length`,
    '',
    `${r.memories} memories from the shared eval sets: ${lengths}. Two nights each (day 3, day 7), ` +
      "the emulator with each model's caching rules; list prices, batch half.",
    '',
    `| model | naive (2 sync calls, no caching) | sync | sync, V2 draft | batch | batch, V2 draft | ${ns.map((n) => `batch, draft, ${n} per request | `).join('')}calls per memory | tokens in / out per memory |`,
    `| --- | --- | --- | --- | --- | --- | ${ns.map(() => '--- | ').join('')}--- | --- |`,
    ...r.rows.map(
      (row) =>
        `| ${row.model} | ${usd(row.naive)} | ${cell(row.sync.separate, row.naive)} | ` +
        `${cell(row.sync.draft, row.naive)} | ${cell(row.batch.separate, row.naive)} | ` +
        `${cell(row.batch.draft, row.naive)} | ` +
        ns
          .map((n) => `${row.grouped[n] === undefined ? '-' : cell(row.grouped[n]!, row.naive)} | `)
          .join('') +
        `${row.requestsPerMemory.separate.toFixed(2)} / ` +
        `${row.requestsPerMemory.draft.toFixed(2)} | ${tokens(row.tokensPerMemory.separate)} / ` +
        `${tokens(row.tokensPerMemory.draft)} |`,
    ),
  ].join('\n');
}
