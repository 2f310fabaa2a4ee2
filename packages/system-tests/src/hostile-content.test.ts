import { enqueueRun, type MemfadeConfig, startWorkerRole, waitForRun } from '@memfade/app';
import { detectLanguage, type Memory, type RoleCard, stagePolicy } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { HOSTILE_MEMORIES, type LlmEmulator, type RecordedRequest, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
// Eight days old: each memory goes raw -> V1 -> V2 in one job, so what the model made of the
// attack in V1 is fed back in as V2's data, and both prompts are checked.
const CREATED = new Date(NOW.getTime() - 8 * 86_400_000);

const ROLE_CARDS: RoleCard[] = [
  { userId: 'hostile-zh', name: '小林', personality: '温和、细心', language: 'zh' },
  { userId: 'hostile-en', name: 'Sam', personality: 'warm, curious', language: 'en' },
];

function documents(): Record<string, unknown>[] {
  return HOSTILE_MEMORIES.map((m) => {
    const base = memoryDocument({
      memoryId: `hostile-${m.key}`,
      userId: `hostile-${m.language}`,
      partnerId: 'companion',
      turns: [],
      createdAt: CREATED,
    });
    return { ...base, content: { raw: m.raw, ...(m.processed && { processed: m.processed }) } };
  });
}

function providerConfig(provider: 'anthropic' | 'openai', emulator: LlmEmulator): MemfadeConfig['provider'] {
  const settings = { apiKey: 'sk-test-key', model: 'emulated-model', timeoutMs: 10_000, maxTokens: 2_000 };
  return provider === 'anthropic'
    ? { provider, ...settings, baseURL: emulator.url }
    : { provider, ...settings, baseURL: `${emulator.url}/v1`, responseFormat: 'json_schema' };
}

/**
 * A request as its parts: what the provider treats as instructions (system prompt, tool and
 * schema definitions, everything but the conversation) and the user turns.
 */
function parts(request: RecordedRequest): { instructions: string; users: string[]; turns: number } {
  const { messages, ...rest } = request.body as { messages: { role: string; content: unknown }[] };
  const system = messages.filter((m) => m.role === 'system');
  const conversation = messages.filter((m) => m.role !== 'system');
  return {
    instructions: JSON.stringify(rest) + JSON.stringify(system),
    users: conversation.filter((m) => m.role === 'user').map((m) => String(m.content)),
    turns: conversation.length,
  };
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * Text as a lenient reader (a model) might read it: escapes of '<' decoded, invisible characters
 * and combining marks dropped, full-width, styled and accented letters folded, lookalike letters
 * folded, lower case. The full-width '＜' is the prompt builder's declared neutral form, so it is
 * set aside first (NFKC would fold it to '<').
 */
function asLenientlyRead(text: string): string {
  return text
    .replaceAll('＜', '\u0000')
    .replace(/&lt;|&#0*60;|&#x0*3c;|\\u003c|\\x3c/gi, '<')
    .normalize('NFKD')
    .replace(/[\p{Cf}\p{Mn}]/gu, '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[еоу]/g, (ch) => ({ е: 'e', о: 'o', у: 'y' })[ch]!);
}
const READS_AS_TAG = /<\s*[/\\]*\s*memory/g;

describe.each(['anthropic', 'openai'] as const)(
  'hostile memories through the queue and the %s SDK (emulator)',
  (provider) => {
    let harness: Harness;
    let emulator: LlmEmulator;
    let before: Memory[];
    let after: Memory[];
    let failed: number;

    beforeAll(async () => {
      emulator = await startLlmEmulator();
      harness = await startHarness({
        now: NOW,
        // V2 as its own call, fed V1's text as data (the V1 call with the V2 draft fences the
        // memory with the same buildPrompt: v2-draft.test.ts, prompt-checklist.test.ts).
        config: {
          provider: providerConfig(provider, emulator),
          policy: stagePolicy({ v2Draft: 'separate' }),
        },
      });
      await insertMemories(harness.services.models, documents(), ROLE_CARDS);
      before = (await harness.services.models.memories
        .find({})
        .sort({ memoryId: 1 })
        .lean()) as unknown as Memory[];
      const workers = startWorkerRole(harness.services);
      const runId = await enqueueRun(harness.services, { trigger: 'manual', asOf: NOW });
      const run = await waitForRun(harness.services, runId, { timeoutMs: 60_000 });
      await workers.close();
      failed = run.counts.failed;
      after = (await harness.services.models.memories
        .find({})
        .sort({ memoryId: 1 })
        .lean()) as unknown as Memory[];
    });
    afterAll(async () => {
      await harness?.close();
      await emulator?.close();
    });

    it('sends one V1 and one V2 request per memory; no repair of a broken answer', () => {
      const first = emulator.requests.filter((request) => parts(request).turns === 1);
      expect(first).toHaveLength(HOSTILE_MEMORIES.length * 2);
      // A repair of the schema, language or length would mean the content broke the answer. A long
      // memory's answer may miss facts: that repair names them (the retention gate), nothing else.
      for (const request of emulator.requests.filter((r) => parts(r).turns > 1))
        expect(parts(request).users.at(-1)).toMatch(
          /^Your previous answer did not meet the requirements: \w+ keeps \d+ of the \d+ facts of the input \(at least \d+% are needed\); keep these: [^\n]+\. Fix it/,
        );
    });

    it('keeps every marker out of the instructions, the tools and the schema', () => {
      const markers = HOSTILE_MEMORIES.flatMap((m) => m.markers);
      for (const request of emulator.requests) {
        const { instructions } = parts(request);
        for (const marker of markers) expect(instructions).not.toContain(marker);
      }
    });

    it('puts the memory only between the one real <memory> and </memory>, every other tag neutralised', () => {
      for (const memory of HOSTILE_MEMORIES) {
        // The V1 request of this memory carries all of its markers.
        const v1 = emulator.requests.find((r) =>
          parts(r).users.some((u) => memory.markers.every((marker) => u.includes(marker))),
        );
        expect(v1, `no request carries the markers of ${memory.key}`).toBeDefined();
      }
      for (const request of emulator.requests) {
        const [user] = parts(request).users;
        expect(count(user!, '<memory>')).toBe(1);
        expect(count(user!, '</memory>')).toBe(1);
        const open = user!.indexOf('<memory>') + '<memory>'.length;
        const close = user!.indexOf('</memory>');
        expect(open).toBeLessThan(close);
        const lead = user!.slice(0, open - '<memory>'.length);
        const block = user!.slice(open, close);
        const trail = user!.slice(close + '</memory>'.length);
        // The text around the block is the builder's own: the date and intro lines, the target length.
        expect(lead).toMatch(
          /^(Conversation date: [^\n]+\nHere is the memory data:|对话日期：[^\n]+\n以下是需要整理的记忆数据：)\n$/,
        );
        expect(trail).toMatch(
          /^\n\n(This memory is about \d+ words \(\d+ characters\) long;\n(compressedContent|coreMemory) should be about \d+-\d+ words \(\d+-\d+ characters\)\.|这条记忆约\d+字；(compressedContent|coreMemory) 应为\d+-\d+字。)$/,
        );
        // Nothing inside the block reads as a memory tag, however leniently it is read.
        expect(asLenientlyRead(block).match(READS_AS_TAG), block).toBeNull();
      }
    });

    it('writes both stages in the memory language, with no failure, and leaves the original byte for byte', () => {
      expect(failed).toBe(0);
      expect(after).toHaveLength(HOSTILE_MEMORIES.length);
      for (const [i, memory] of after.entries()) {
        const fixture = HOSTILE_MEMORIES.find((m) => `hostile-${m.key}` === memory.memoryId)!;
        expect(memory.meta.compressionStage).toBe('v2');
        expect(memory.compression?.lastError).toBeUndefined();
        expect(detectLanguage(memory.compression!.v1!.compressedContent)).toBe(fixture.language);
        expect(detectLanguage(memory.compression!.v2!.coreMemory)).toBe(fixture.language);
        expect(Buffer.from(JSON.stringify(memory.content))).toEqual(
          Buffer.from(JSON.stringify(before[i]!.content)),
        );
        expect(memory.content.raw).toEqual(fixture.raw);
      }
    });
  },
);
