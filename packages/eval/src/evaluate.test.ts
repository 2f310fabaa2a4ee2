import { createQaModel } from '@memfade/ai';
import {
  type Compressor,
  costOf,
  type ModelReply,
  stagePolicy,
  type V1Fields,
  type V2Fields,
  ZERO_USAGE,
} from '@memfade/core';
import { type LlmEmulator, startLlmEmulator } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from './evaluate.js';
import { loadDataset } from './loaders.js';
import { renderMarkdown, renderRetentionSvg } from './report.js';

/**
 * A compressor whose outputs are written by hand for fixtures/crafted.jsonl (the test double
 * stands where a model provider would), so every retention and accuracy number is known.
 * Each conversation is recognised by a word of its own that its V1 text keeps.
 */
const SCRIPT: Record<string, { v1: string; v2: string }> = {
  Lisbon: {
    v1: 'Maya moved to Lisbon in May 2023. The rent of her flat is 900 euros a month. She talked with the companion about settling in near the river.',
    v2: 'Maya lives in Lisbon. She spoke warmly about the new flat and about settling in with her family near the water.',
  },
  Osaka: {
    v1: "Ken's brother lives in Osaka and teaches music. They chatted about school, children and how his days usually go.",
    v2: 'Ken has a brother far away who teaches. The conversation was warm and relaxed, about family and work and weekends.',
  },
  杭州: {
    v1: '小林三月搬到了杭州，和小猫一起生活，每天早上小猫会叫她起床，她很喜欢新城市的生活。',
    // The wrong language: the pipeline's gate must refuse it, and the eval must report the failure.
    v2: 'Xiao Lin moved to a new city with a cat.',
  },
};

function script(text: string): { v1: string; v2: string } {
  const key = Object.keys(SCRIPT).find((k) => text.includes(k));
  if (!key) throw new Error(`no scripted output for: ${text.slice(0, 60)}`);
  return SCRIPT[key]!;
}

const reply = <T>(fields: T): ModelReply<T> => ({
  fields,
  usage: ZERO_USAGE,
  model: 'scripted',
  promptVersion: 'scripted',
});

/** The role card each V1 request carried, by the word that recognises its conversation. */
const cardsSeen: Record<string, unknown> = {};

const scriptedCompressor: Compressor = {
  name: 'scripted',
  async compressV1(request) {
    cardsSeen[Object.keys(SCRIPT).find((k) => request.text.includes(k)) ?? '?'] = request.roleCard;
    return reply<V1Fields>({
      compressedContent: script(request.text).v1,
      keyPoints: [],
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    });
  },
  async compressV2(request) {
    return reply<V2Fields>({
      coreMemory: script(request.text).v2,
      coreMemoryPoints: [],
      memoryTraces: { clear: [], fuzzy: [], vague: [] },
      forgotten: { details: [], reason: '' },
      emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
      personalityNotes: '',
    });
  },
};

const CRAFTED = new URL('../fixtures/crafted.jsonl', import.meta.url).pathname;

// Short enough that the crafted conversations are compressed rather than carried as too short.
const policy = stagePolicy({ minInputChars: 20 });
const now = () => new Date('2026-11-24T12:00:00Z');

describe('evaluate on a crafted set whose numbers are known by hand', () => {
  it('counts facts present in raw, what V1 and V2 keep, and the V2 that failed', async () => {
    const report = await evaluate(await loadDataset(CRAFTED, 'jsonl'), {
      compressor: scriptedCompressor,
      policy,
      now,
    });
    expect(report.conversations).toBe(3);
    const en = report.byLanguage.en!;
    // maya: 4 facts, all in raw; ken: 3 facts, "Tokyo" not in raw.
    expect(en.facts).toEqual({ total: 7, inRaw: 6, rawCoverage: 6 / 7 });
    expect(en.stages.raw!.facts).toEqual({ counted: 6, kept: 6, retention: 1 });
    // V1 keeps Lisbon, May 2023, 900 euros (not "sister Ana") and Osaka (not violin).
    expect(en.stages.v1!.facts).toEqual({ counted: 6, kept: 4, retention: 4 / 6 });
    // V2 keeps Lisbon only.
    expect(en.stages.v2!.facts).toEqual({ counted: 6, kept: 1, retention: 1 / 6 });
    expect(en.stages.v2!.languageFidelity).toBe(1);
    expect(en.failures).toBe(0);

    const zh = report.byLanguage.zh!;
    // 杭州, 三月, 团子 in raw, 苏州 not; V1 keeps 杭州 and 三月.
    expect(zh.facts).toEqual({ total: 4, inRaw: 3, rawCoverage: 3 / 4 });
    expect(zh.stages.v1!.facts).toEqual({ counted: 3, kept: 2, retention: 2 / 3 });
    // Its V2 was in English: the pipeline's gate refused it, so zh has no V2 and one failure.
    expect(zh.stages.v2).toBeUndefined();
    expect(zh.failures).toBe(1);
    expect(report.failures).toEqual([
      { id: 'xiaolin', stage: 'v2', reason: expect.stringContaining('the memory is in zh') },
    ]);

    // Lengths, measured by hand: the V1 ratio is V1's length over the raw conversation's.
    const maya = report.results.find((r) => r.id === 'maya')!;
    const rawMaya =
      'Maya: I moved to Lisbon in May 2023 with my sister Ana.\n' +
      'Companion: That sounds like a big change. How do you like the new place so far?\n' +
      'Maya: The flat is near the river and the rent is 900 euros a month.\n' +
      'Companion: Near the river sounds lovely. I hope the two of you settle in well.';
    expect(maya.stages.raw!.length).toBe(rawMaya.length);
    expect(maya.stages.v1!.length).toBe(SCRIPT.Lisbon!.v1.length);
    expect(maya.stages.v1!.ratio).toBeCloseTo(SCRIPT.Lisbon!.v1.length / rawMaya.length, 6);
    expect(maya.stages.v1!.target).toBe('within'); // 141 of 290 characters: 30-50%
    // V2's configured range (250-500), not one capped by V1's length: 108 characters is below it.
    expect(maya.stages.v2!.target).toBe('below');
    // The set's role card reached the compressor; its date is the memory's.
    expect(cardsSeen.Lisbon).toMatchObject({
      name: 'Companion',
      userName: 'Maya',
      hobbies: 'rivers, cooking',
    });
    expect(maya.date).toBe('2023-05-08T00:00:00.000Z');
    expect(report.cost.compression.usage).toEqual(ZERO_USAGE);
    expect(report.cost.qa).toBeUndefined();
  });

  it('measures how each memory reads, per stage, and reports it per language with the worst examples', async () => {
    const report = await evaluate(await loadDataset(CRAFTED, 'jsonl'), {
      compressor: scriptedCompressor,
      policy,
      now,
      set: 'crafted.jsonl (jsonl)',
    });
    const ken = report.results.find((r) => r.id === 'ken')!;
    const failing = (r: typeof ken) => r.findings.filter((f) => !f.ok).map((f) => `${f.stage}:${f.measure}`);
    // Ken's V2 (114 characters) is below the configured 250-500, whatever V1's length.
    expect(failing(ken)).toContain('v2:length');
    // Xiaolin's V2 failed (wrong language): only V1 is measured, and it does not name the topic, 团子.
    const xiaolin = report.results.find((r) => r.id === 'xiaolin')!;
    expect(xiaolin.findings.filter((f) => f.measure === 'topic')).toEqual([
      {
        measure: 'topic',
        stage: 'v1',
        ok: false,
        quote: expect.stringContaining('小林三月'),
        note: 'does not name 团子',
      },
    ]);
    const en = report.byLanguage.en!;
    expect(en.reader.length?.v2).toMatchObject({ applies: 2, failing: 2, share: 1 });
    expect(en.reader.labels?.v1).toMatchObject({ applies: 2, failing: 0, share: 0 });
    // Maya and Ken are named in their memories; "Companion" is a role, not a name to look for.
    expect(en.reader.speakers?.v2).toMatchObject({ applies: 2, failing: 0 });
    expect(en.samples.best.length + en.samples.worst.length).toBe(2);
    // The extractor's facts of raw, and what each stage kept of them.
    expect(en.stages.raw!.extracted.retention).toBe(1);
    expect(en.stages.v2!.extracted.kept).toBeLessThan(en.stages.v1!.extracted.kept);
    const markdown = renderMarkdown(report);
    expect(markdown).toContain('# memfade eval: crafted.jsonl (jsonl)');
    expect(markdown).toContain('Compressor: scripted');
    expect(markdown).toMatch(
      /^\| length outside the configured range +\| [^|]+\| 100\.0% \(2\/2\) +\| ≤ 5% +\|$/m,
    );
    expect(markdown).toContain('- **length outside the configured range (V2)**');
    expect(markdown).toContain('(does not name 团子)');
    expect(markdown).toMatch(/#### best 2: `(maya|ken)`/);
  });

  it('renders the numbers in the markdown and the retention bars in the SVG', async () => {
    const report = await evaluate(await loadDataset(CRAFTED, 'jsonl'), {
      compressor: scriptedCompressor,
      policy,
      now,
    });
    const markdown = renderMarkdown(report);
    // Table cells are padded to the column's width, as the formatter writes markdown.
    expect(markdown).toMatch(/^\| V1 +\| 2 +\| 66\.7% \(4\/6\) +\|/m);
    expect(markdown).toMatch(/^\| V1 +\| 1 +\| 66\.7% \(2\/3\) +\|/m);
    expect(markdown).toContain('xiaolin (v2)');
    const svg = renderRetentionSvg(report);
    const bars = [...svg.matchAll(/data-stage="(\w+)" data-language="(\w+)"[^>]* height="([\d.]+)"/g)];
    // raw, V1, V2 for en; raw and V1 for zh (its V2 failed).
    expect(bars.map((b) => `${b[1]}-${b[2]}`)).toEqual(['raw-zh', 'raw-en', 'v1-zh', 'v1-en', 'v2-en']);
    const height = Object.fromEntries(bars.map((b) => [`${b[1]}-${b[2]}`, Number(b[3])]));
    expect(height['v1-en']! / height['raw-en']!).toBeCloseTo(4 / 6, 2);
    expect(height['v2-en']! / height['raw-en']!).toBeCloseTo(1 / 6, 2);
  });
});

describe('QA accuracy through the emulator, with the real SDKs over HTTP', () => {
  let emulator: LlmEmulator;
  beforeAll(async () => {
    emulator = await startLlmEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it.each(['anthropic', 'openai'] as const)(
    '%s: answers from each stage text alone, judges, and accounts for tokens and cost',
    async (provider) => {
      const settings = {
        apiKey: 'sk-test-key-for-eval',
        model: 'claude-eval',
        timeoutMs: 10_000,
        maxTokens: 500,
      };
      const model = (name: string) =>
        createQaModel(
          provider === 'anthropic'
            ? { provider, ...settings, model: name, baseURL: emulator.url }
            : {
                provider,
                ...settings,
                model: name,
                baseURL: `${emulator.url}/v1`,
                responseFormat: 'json_schema',
              },
        )!;
      const qa = model('claude-eval');
      const judge = model('claude-judge');
      const before = emulator.requests.length;
      const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
      const report = await evaluate(await loadDataset(CRAFTED, 'jsonl'), {
        compressor: scriptedCompressor,
        policy,
        now,
        qa,
        judge,
        prices: { 'claude-eval': price, 'claude-judge': price },
      });
      expect([report.qaModel, report.judgeModel]).toEqual(['claude-eval', 'claude-judge']);
      const en = report.byLanguage.en!;
      // The headline leaves the adversarial question out (a stage that forgets declines more).
      // raw: all 3 right. V1: maya's 2 right, ken's violin gone (the Osaka sentence is answered).
      // V2: none; maya's adversarial question is declined at every stage, reported apart.
      expect(en.stages.raw!.qa).toMatchObject({ questions: 3, correct: 3, accuracy: 1 });
      expect(en.stages.v1!.qa).toMatchObject({ questions: 3, correct: 2, accuracy: 2 / 3 });
      expect(en.stages.v2!.qa).toMatchObject({ questions: 3, correct: 0, accuracy: 0 });
      for (const stage of ['raw', 'v1', 'v2'] as const)
        expect(en.stages[stage]!.qa!.adversarial).toEqual({ questions: 1, declined: 1, declineRate: 1 });
      expect(en.stages.v1!.qa!.byCategory).toEqual({
        '2': { questions: 1, correct: 1, accuracy: 1 },
        '4': { questions: 2, correct: 1, accuracy: 0.5 },
      });
      expect(en.warnings).toEqual([]);
      expect(report.byLanguage.zh!.stages.raw!.qa).toBeUndefined(); // no questions in zh

      // 12 answers (4 questions x 3 stages); judges only for answers given to ordinary questions:
      // raw 3, V1 3 (ken's wrong answer included), V2 1 (ken's): 7.
      const calls = emulator.requests.slice(before);
      const tools = calls.map((r) =>
        provider === 'anthropic' ? r.body.tool_choice.name : r.body.response_format.json_schema.name,
      );
      const system = (r: (typeof calls)[number]) =>
        JSON.stringify(provider === 'anthropic' ? r.body.system : r.body.messages[0]);
      expect(tools.filter((t) => t === 'record_answer')).toHaveLength(12);
      expect(tools.filter((t) => t === 'record_judgement')).toHaveLength(7);
      // The answers come from one model, the judgements from another.
      const byTool = (tool: string) =>
        new Set(calls.filter((_, i) => tools[i] === tool).map((r) => r.body.model));
      expect(byTool('record_answer')).toEqual(new Set(['claude-eval']));
      expect(byTool('record_judgement')).toEqual(new Set(['claude-judge']));
      // The V2 answers saw V2's text and nothing of the raw conversation.
      const v2Context = calls.filter((r) => system(r).includes('Maya lives in Lisbon'));
      expect(v2Context).toHaveLength(3);
      for (const call of v2Context) expect(system(call)).not.toContain('900 euros');

      const cost = report.cost.qa!;
      expect(cost.calls).toBe(19);
      expect(cost.models).toEqual(['claude-eval', 'claude-judge']);
      expect(cost.usage.inputTokens).toBeGreaterThan(0);
      expect(cost.usage.outputTokens).toBeGreaterThan(0);
      // Questions about one stage of one conversation share the cached memory prefix.
      expect(cost.usage.cacheReadTokens).toBeGreaterThan(0);
      expect(cost.costUsd).toBeCloseTo(costOf(cost.usage, price), 10);
      expect(cost.costUsd).toBeGreaterThan(0);
      const markdown = renderMarkdown(report);
      expect(markdown).toMatch(/^\| V2 +\| 3 +\| 0\.0% +\| .* \| 100\.0% \(1\/1\) +\|$/m);
      expect(markdown).toContain('judge model: claude-judge');
      expect(markdown).not.toContain('the same model');
    },
  );
});
