import { type Language, type Stage, type StagePolicy, v2LengthTarget } from '@memfade/core';
import { clip, MEASURES, type MeasureName, type MeasureStage } from './measures/types.js';
import { type QaSummary, summariseQa } from './qa.js';
import type { ConversationResult, TargetStatus } from './result.js';

export const STAGE_ORDER: Stage[] = ['raw', 'v1', 'v2'];

/** The texts of one memory at each stage, kept for the report's samples only. */
export type Texts = Partial<Record<Stage, string>>;

export interface Distribution {
  mean: number;
  p10: number;
  p50: number;
  p90: number;
}

export interface StageSummary {
  conversations: number;
  length: Distribution;
  ratio: Distribution;
  /** Conversations per target status, against the configured range (V1 and V2). */
  target?: Record<TargetStatus, number>;
  /** Share of the conversations whose stage text is in the conversation's language. */
  languageFidelity: number;
  /** Gold facts present in raw (of these conversations), and how many this stage kept. */
  facts: { counted: number; kept: number; retention: number | null };
  /** The extractor's facts of raw (names, places, dates, numbers, plans, the topic), and how many this stage kept. */
  extracted: { counted: number; kept: number; retention: number | null };
  /** Stages the pipeline wrote with a retention-gate warning. */
  retentionWarnings?: number;
  qa?: QaSummary;
}

/** One measure on one stage over a set's memories of one language. */
export interface MeasureSummary {
  applies: number;
  failing: number;
  share: number | null;
  /** The worst examples, quoted: most severe first. */
  worst: { id: string; quote?: string; note?: string }[];
}

export interface Sample {
  id: string;
  score: number;
  raw: string;
  v1?: string;
  v2?: string;
  /** The checks it fails, as "V2 labels: 2 speaker labels". */
  failing: string[];
}

export interface LanguageSummary {
  conversations: number;
  /** Gold facts of these conversations, and the share of them the raw text holds (the upper bound). */
  facts: { total: number; inRaw: number; rawCoverage: number | null };
  failures: number;
  stages: Partial<Record<Stage, StageSummary>>;
  /** What a reader sees: each measure, per stage. */
  reader: Partial<Record<MeasureName, Partial<Record<MeasureStage, MeasureSummary>>>>;
  samples: { best: Sample[]; worst: Sample[] };
  /** What does not add up and must be read with care (a stage scoring above raw). */
  warnings: string[];
  targets: { v1Ratio: { min: number; max: number }; v2Length: { min: number; max: number } };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function distribution(values: number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
  return { mean, p10: percentile(sorted, 0.1), p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9) };
}

export const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

const LABEL: Record<Stage, string> = { raw: 'raw', v1: 'V1', v2: 'V2' };

function stageSummary(stage: Stage, reached: ConversationResult[]): StageSummary {
  const outcomes = reached.map((r) => r.stages[stage]!);
  const counted = reached.reduce((n, r) => n + r.facts.inRaw, 0);
  const kept = outcomes.reduce((n, o) => n + o.factsKept, 0);
  const extracted = reached.reduce((n, r) => n + r.extracted, 0);
  const extractedKept = outcomes.reduce((n, o) => n + o.extractedKept, 0);
  const summary: StageSummary = {
    conversations: reached.length,
    length: distribution(outcomes.map((o) => o.length)),
    ratio: distribution(outcomes.map((o) => o.ratio)),
    languageFidelity: outcomes.filter((o) => o.languageMatches).length / outcomes.length,
    facts: { counted, kept, retention: share(kept, counted) },
    extracted: { counted: extracted, kept: extractedKept, retention: share(extractedKept, extracted) },
  };
  if (stage !== 'raw') {
    const target = { below: 0, within: 0, above: 0, skipped: 0 };
    for (const o of outcomes) if (o.target) target[o.target]++;
    summary.target = target;
    summary.retentionWarnings = reached.filter((r) =>
      r.warnings?.[stage]?.some((w) => w.startsWith('retention')),
    ).length;
  }
  if (outcomes.some((o) => o.qa)) summary.qa = summariseQa(outcomes.flatMap((o) => o.qa ?? []));
  return summary;
}

function readerSummary(results: ConversationResult[]): LanguageSummary['reader'] {
  const reader: LanguageSummary['reader'] = {};
  for (const measure of MEASURES) {
    for (const stage of ['v1', 'v2'] as const) {
      const found = results.flatMap((r) =>
        r.findings.filter((f) => f.measure === measure && f.stage === stage).map((f) => ({ id: r.id, f })),
      );
      if (found.length === 0) continue;
      const failing = found.filter((x) => !x.f.ok);
      const worst = [...failing]
        .sort((a, b) => (b.f.severity ?? 1) - (a.f.severity ?? 1))
        .slice(0, 3)
        .map(({ id, f }) => ({ id, ...(f.quote && { quote: f.quote }), ...(f.note && { note: f.note }) }));
      reader[measure] ??= {};
      reader[measure][stage] = {
        applies: found.length,
        failing: failing.length,
        share: share(failing.length, found.length),
        worst,
      };
    }
  }
  return reader;
}

function sampleOf(r: ConversationResult, texts: Map<string, Texts>): Sample {
  const t = texts.get(r.id) ?? {};
  return {
    id: r.id,
    score: Math.round(r.score * 1000) / 1000,
    raw: clip(t.raw ?? '', 400),
    ...(t.v1 !== undefined && { v1: clip(t.v1, 400) }),
    ...(t.v2 !== undefined && { v2: t.v2 }),
    failing: r.findings
      .filter((f) => !f.ok)
      .map((f) => `${LABEL[f.stage]} ${f.measure}${f.note ? `: ${f.note}` : ''}`),
  };
}

/** Where a stage answers more questions right than raw, the QA number measures something else. */
function qaWarnings(stages: LanguageSummary['stages']): string[] {
  const raw = stages.raw?.qa?.accuracy;
  if (raw === null || raw === undefined) return [];
  return (['v1', 'v2'] as const).flatMap((stage) => {
    const accuracy = stages[stage]?.qa?.accuracy;
    if (accuracy === null || accuracy === undefined || accuracy <= raw) return [];
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    return [
      `${LABEL[stage]} answers ${pct(accuracy)} of the questions right, more than raw's ${pct(raw)}: ` +
        'a stage cannot know more than the conversation; suspect the judge or the answering model, not the memory',
    ];
  });
}

/** How many of the best and of the worst memories a report quotes, unless asked otherwise. */
export const SAMPLES = 3;

/** Per language (never merged): stages, what a reader sees, the best and worst memories, warnings. */
export function summarise(
  results: ConversationResult[],
  texts: Map<string, Texts>,
  policy: StagePolicy,
  samples = SAMPLES,
): Partial<Record<Language, LanguageSummary>> {
  const out: Partial<Record<Language, LanguageSummary>> = {};
  for (const language of ['zh', 'en'] as const) {
    const mine = results.filter((r) => r.language === language);
    if (mine.length === 0) continue;
    const total = mine.reduce((n, r) => n + r.facts.total, 0);
    const inRaw = mine.reduce((n, r) => n + r.facts.inRaw, 0);
    const stages: LanguageSummary['stages'] = {};
    for (const stage of STAGE_ORDER) {
      const reached = mine.filter((r) => r.stages[stage]);
      if (reached.length) stages[stage] = stageSummary(stage, reached);
    }
    const ranked = mine
      .filter((r) => r.stages.v2)
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    out[language] = {
      conversations: mine.length,
      facts: { total, inRaw, rawCoverage: share(inRaw, total) },
      failures: mine.filter((r) => r.failure).length,
      stages,
      reader: readerSummary(mine),
      samples: {
        best: ranked.slice(0, samples).map((r) => sampleOf(r, texts)),
        // Never the same memory twice: a set of five shows three best and two worst.
        worst: ranked
          .slice(Math.max(samples, ranked.length - samples))
          .reverse()
          .map((r) => sampleOf(r, texts)),
      },
      warnings: qaWarnings(stages),
      targets: { v1Ratio: policy.v1Ratio, v2Length: v2LengthTarget(policy, language) },
    };
  }
  return out;
}
