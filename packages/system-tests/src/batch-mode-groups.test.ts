import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import type { Usage } from '@memfade/core';
import type { RunRecord } from '@memfade/db';
import type { Fault, RecordedRequest } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { audit, closeBatchMode, emulator, setUp } from './batch-mode-harness.js';

/**
 * Several memories per batch request (MEMORIES_PER_REQUEST, docs/batch-mode.md): one user's
 * memories share a request line, the shared prefix sent once; each memory's item is checked and
 * written as a single reply would be; a memory the line did not answer is retried alone; the line's
 * tokens are split among its memories, so what the run and the per-user ledger count is what the
 * provider billed, token for token. Through the real SDKs and the emulator's batch APIs.
 */

const MEMORIES = 24;
// The batch-mode harness gives memory i to user u(i % 4): six memories per user; every fourth is
// V2-old (V1 in round 0, V2 in round 1, with V2_DRAFT=separate as the harness sets).
const memories = Array.from({ length: MEMORIES }, (_, i) => ({
  id: `g${String(i).padStart(2, '0')}`,
  ageDays: i % 4 === 0 ? 9 : 4,
}));

/** Room for three members' budgets in one line (the harness's 2,000 holds one). */
const MAX_TOKENS = 8_000;

/** The tool (Anthropic) or response format (OpenAI) a model request named. */
const toolOf = (r: RecordedRequest): string =>
  r.body?.tool_choice?.name ?? r.body?.response_format?.json_schema?.name ?? '';
const isGroupLine = (r: RecordedRequest) => toolOf(r).endsWith('_memories');
const modelCalls = () => emulator!.requests.filter((r) => r.api !== 'embeddings');
/** The days ("Day N:") a request's memories name, in prompt order (a memory's text may name its own twice). */
const daysIn = (r: RecordedRequest) => [
  ...new Set([...JSON.stringify(r.body).matchAll(/Day (\d+):/g)].map((m) => Number(m[1]))),
];

const total = (u: Usage) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
const runTokens = (run: RunRecord) => total(run.tokens.v1) + total(run.tokens.v2);

async function night(services: Awaited<ReturnType<typeof setUp>>) {
  const worker = startWorkerRole(services);
  try {
    const runId = await enqueueRun(services, { trigger: 'manual' });
    const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
    return { runId, run };
  } finally {
    await worker.close();
  }
}

/** Every memory at its stage, once; billed == counted; the per-user ledger sums to the run. */
async function expectNightWhole(services: Awaited<ReturnType<typeof setUp>>, runId: string, run: RunRecord) {
  const after = await audit(services, runId);
  for (const m of memories) {
    const expected = m.ageDays >= 7 ? ['v1', 'v2'] : ['v1'];
    expect(after[m.id], m.id).toEqual({ stage: expected.at(-1), history: expected });
  }
  expect(run.counts).toMatchObject({ processed: MEMORIES, v1: MEMORIES, v2: MEMORIES / 4, failed: 0 });
  const billed = emulator!.billed();
  expect(runTokens(run)).toBe(billed.sync.tokens + billed.batch.tokens);
  const ledger = await services.runs.userCosts.ofRun(runId);
  expect(ledger.reduce((n, u) => n + total(u.tokens), 0)).toBe(runTokens(run));
  expect(ledger.map((u) => u.userId).sort()).toEqual(['u0', 'u1', 'u2', 'u3']);
}

/** Fails the first group line with `fault` (the rest answer normally); the days that line held. */
function faultFirstGroup(fault: Fault) {
  const held: number[] = [];
  emulator!.setRule(({ api, body }) => {
    if (api === 'embeddings' || held.length > 0) return undefined;
    const request = { api, body, headers: {} } as RecordedRequest;
    if (!isGroupLine(request)) return undefined;
    held.push(...daysIn(request));
    return fault;
  });
  return held;
}

describe('batch mode: several memories per request (MEMORIES_PER_REQUEST)', () => {
  afterEach(closeBatchMode);

  it.each(['anthropic', 'openai'] as const)(
    'MEMORIES_PER_REQUEST=3 through %s: one user per line, every memory at its stage, billed == counted',
    async (provider) => {
      const services = await setUp(provider, memories, { perRequest: 3 }, {}, { maxTokens: MAX_TOKENS });
      const { runId, run } = await night(services);
      await expectNightWhole(services, runId, run);
      const calls = modelCalls();
      const groups = calls.filter(isGroupLine);
      // 30 stages (24 V1, 6 V2) in lines of up to 3 memories, one user's each.
      expect(groups.length).toBeGreaterThanOrEqual(6);
      expect(calls.every((r) => r.batchId)).toBe(true);
      expect(calls.length).toBeLessThan(MEMORIES);
      for (const line of groups) {
        const days = daysIn(line);
        expect(days.length).toBeGreaterThanOrEqual(2);
        expect(days.length).toBeLessThanOrEqual(3);
        expect(new Set(days.map((d) => d % 4)).size, `one user per line: days ${days}`).toBe(1);
      }
      expect(calls.reduce((n, r) => n + daysIn(r).length, 0)).toBe(MEMORIES + MEMORIES / 4);
    },
  );

  it.each(['anthropic', 'openai'] as const)(
    'through %s: a memory missing from a group reply is retried alone and lands; its share of the line is counted',
    async (provider) => {
      const services = await setUp(provider, memories, { perRequest: 3 }, {}, { maxTokens: MAX_TOKENS });
      const held = faultFirstGroup({ kind: 'drop-item', index: 0 });
      const { runId, run } = await night(services);
      await expectNightWhole(services, runId, run);
      const dropped = held[0]!;
      // The dropped memory's next request is a line of its own, after the group's.
      const its = modelCalls().filter((r) => daysIn(r).includes(dropped));
      expect(its.length).toBeGreaterThanOrEqual(2);
      expect(isGroupLine(its[0]!)).toBe(true);
      expect(isGroupLine(its[1]!)).toBe(false);
      expect(daysIn(its[1]!)).toEqual([dropped]);
      // The group's other memories were answered by it: no second V1 request of theirs.
      for (const day of held.slice(1)) {
        const v1 = modelCalls().filter((r) => daysIn(r).includes(day) && !toolOf(r).includes('v2'));
        expect(v1, `day ${day}`).toHaveLength(1);
      }
    },
  );

  it('a broken item is retried alone; a group cut at max_tokens is retried as singles', async () => {
    const services = await setUp('anthropic', memories, { perRequest: 3 }, {}, { maxTokens: MAX_TOKENS });
    const held = faultFirstGroup({ kind: 'truncate' });
    const { runId, run } = await night(services);
    await expectNightWhole(services, runId, run);
    expect(held.length).toBeGreaterThanOrEqual(2);
    for (const day of held) {
      const its = modelCalls().filter((r) => daysIn(r).includes(day));
      expect(isGroupLine(its[0]!), `day ${day}`).toBe(true);
      expect(isGroupLine(its[1]!), `day ${day}`).toBe(false);
      expect(daysIn(its[1]!)).toEqual([day]);
    }
    await closeBatchMode();

    const again = await setUp('anthropic', memories, { perRequest: 3 }, {}, { maxTokens: MAX_TOKENS });
    const broken = faultFirstGroup({ kind: 'break-item', index: 1 });
    const second = await night(again);
    await expectNightWhole(again, second.runId, second.run);
    const its = modelCalls().filter((r) => daysIn(r).includes(broken[1]!));
    expect(isGroupLine(its[1]!)).toBe(false);
  });

  it.each([
    [1, 'openai'],
    [3, 'anthropic'],
  ] as const)(
    'MEMORIES_PER_REQUEST=%i through %s: a line that says nothing of its usage is counted at its ceiling, never as free',
    async (perRequest, provider) => {
      const services = await setUp(provider, memories, { perRequest }, {}, { maxTokens: MAX_TOKENS });
      const held: number[] = [];
      emulator!.setRule(({ api, body }) => {
        const request = { api, body, headers: {} } as RecordedRequest;
        if (api === 'embeddings' || held.length > 0 || (perRequest > 1 && !isGroupLine(request))) return;
        held.push(...daysIn(request));
        return { kind: 'no-usage' };
      });
      const { runId, run } = await night(services);
      const after = await audit(services, runId);
      for (const m of memories) expect(after[m.id]?.stage, m.id).toBe(m.ageDays >= 7 ? 'v2' : 'v1');
      expect(held.length).toBe(perRequest);
      // Every other line counted as billed, the unmetered one at its ceiling: above what it billed.
      const billed = emulator!.billed();
      expect(runTokens(run)).toBeGreaterThan(billed.sync.tokens + billed.batch.tokens);
      const ledger = await services.runs.userCosts.ofRun(runId);
      expect(ledger.reduce((n, u) => n + total(u.tokens), 0)).toBe(runTokens(run));
    },
  );

  it('MEMORIES_PER_REQUEST=1 sends one memory per line, in the single request shape, and records no group', async () => {
    const services = await setUp('anthropic', memories, { perRequest: 1 }, {}, { maxTokens: MAX_TOKENS });
    const { runId, run } = await night(services);
    await expectNightWhole(services, runId, run);
    const calls = modelCalls();
    expect(calls).toHaveLength(MEMORIES + MEMORIES / 4);
    for (const r of calls) {
      expect(['record_v1_memory', 'record_v2_memory']).toContain(toolOf(r));
      expect(daysIn(r)).toHaveLength(1);
      expect(JSON.stringify(r.body)).not.toContain('memoryId');
    }
    const records = await services.models.batchRequests.collection.find({ runId }).toArray();
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((r) => 'line' in r || 'alone' in r)).toEqual([]);
    const batches = await services.models.batches.collection.find({ runId }).toArray();
    expect(batches.filter((b) => 'lines' in b)).toEqual([]);
  });
});
