import { readFile } from 'node:fs/promises';
import type { Turn } from '@memfade/core';
import { z } from 'zod';
import {
  type EvalConversation,
  type EvalFact,
  type EvalFormat,
  type EvalQuestion,
  normalise,
} from './dataset.js';

/** The input file cannot be read as the format says; the message names the line or the field. */
export class DatasetError extends Error {
  override name = 'DatasetError';
}

export async function loadDataset(file: string, format: EvalFormat): Promise<EvalConversation[]> {
  const text = await readFile(file, 'utf8');
  switch (format) {
    case 'locomo':
      return parseLocomo(parseJson(text, file));
    case 'kdconv':
      return parseKdconv(parseJson(text, file));
    case 'memorybank':
      return parseMemorybank(parseJson(text, file));
    case 'jsonl':
      return parseJsonl(text);
  }
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DatasetError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

function check<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new DatasetError(`${where}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** Facts once each: a triple repeated on every utterance that uses it is one fact. */
function uniqueFacts(facts: EvalFact[]): EvalFact[] {
  const seen = new Set<string>();
  return facts.filter((fact) => {
    const key = normalise(fact.text);
    if (key === '' || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---- LoCoMo: each session of each conversation is one memory (one day's chat) ----

const locomoSchema = z.array(
  z.object({
    sample_id: z.string(),
    conversation: z.record(z.string(), z.unknown()),
    qa: z.array(
      z.object({
        question: z.string(),
        answer: z.union([z.string(), z.number()]).nullish(),
        evidence: z.array(z.string()).default([]),
        category: z.number().int(),
      }),
    ),
  }),
);

const locomoTurn = z.object({ speaker: z.string(), text: z.string(), blip_caption: z.string().optional() });

/** Session numbers of an evidence list ("D3:5", also "D8:6; D9:17"); malformed ids are ignored. */
function evidenceSessions(evidence: string[]): Set<number> {
  const sessions = new Set<number>();
  for (const item of evidence.flatMap((e) => e.split(/[;,\s]+/))) {
    const match = item.match(/^D(\d+):\d+$/);
    if (match) sessions.add(Number(match[1]));
  }
  return sessions;
}

/**
 * LoCoMo: gold facts are the answers of the category 1-4 questions whose evidence lies in the
 * session; the session's questions are those whose evidence lies only in it (category 5 is
 * adversarial: nothing in the conversation answers it).
 */
export function parseLocomo(data: unknown): EvalConversation[] {
  const samples = check(locomoSchema, data, 'locomo');
  const out: EvalConversation[] = [];
  for (const sample of samples) {
    const sessions = Object.keys(sample.conversation)
      .map((key) => key.match(/^session_(\d+)$/)?.[1])
      .filter((n): n is string => n !== undefined && Array.isArray(sample.conversation[`session_${n}`]))
      .map(Number)
      .sort((a, b) => a - b);
    for (const n of sessions) {
      const raw = check(
        z.array(locomoTurn),
        sample.conversation[`session_${n}`],
        `${sample.sample_id} session_${n}`,
      );
      if (raw.length === 0) continue;
      const turns: Turn[] = raw.map((t) => ({
        role: t.speaker,
        // A shared photo is part of what was said: several answers are only in its caption.
        text: t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text,
      }));
      const own = sample.qa.filter((q) => {
        const where = evidenceSessions(q.evidence);
        return where.size === 1 && where.has(n);
      });
      const questions: EvalQuestion[] = own.map((q) =>
        q.category === 5 || q.answer === undefined || q.answer === null
          ? { question: q.question, category: q.category, adversarial: true }
          : { question: q.question, answer: String(q.answer), category: q.category, adversarial: false },
      );
      const facts = uniqueFacts(
        questions.filter((q) => !q.adversarial).map((q) => ({ text: q.answer!, attribute: q.question })),
      );
      out.push({ id: `${sample.sample_id}/session_${n}`, language: 'en', turns, facts, questions });
    }
  }
  return out;
}

// ---- KdConv: each dialogue is one memory; its knowledge triples are the gold facts ----

const kdconvSchema = z.array(
  z.object({
    name: z.string().optional(),
    messages: z.array(
      z.object({
        message: z.string(),
        attrs: z
          .array(z.object({ name: z.string(), attrname: z.string(), attrvalue: z.string() }))
          .optional(),
      }),
    ),
  }),
);

export function parseKdconv(data: unknown): EvalConversation[] {
  return check(kdconvSchema, data, 'kdconv').map((dialogue, index) => ({
    id: `kdconv/${index + 1}`,
    language: 'zh' as const,
    // KdConv does not say who is who: the two speakers alternate, the first one asks.
    turns: dialogue.messages.map((m, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', text: m.message })),
    facts: uniqueFacts(
      dialogue.messages.flatMap((m) =>
        (m.attrs ?? []).map((a) => ({ text: a.attrvalue, entity: a.name, attribute: a.attrname })),
      ),
    ),
    questions: [],
  }));
}

// ---- MemoryBank: one memory per user per day; no gold facts ----

const memorybankSchema = z.record(
  z.string(),
  z.object({
    name: z.string().optional(),
    history: z.record(z.string(), z.array(z.object({ query: z.string(), response: z.string() }))),
  }),
);

/**
 * MemoryBank has no gold facts and no gold answers (its probing questions come without them):
 * it reports lengths, language fidelity and failures only.
 */
export function parseMemorybank(data: unknown): EvalConversation[] {
  const users = check(memorybankSchema, data, 'memorybank');
  return Object.entries(users).flatMap(([user, record]) =>
    Object.entries(record.history)
      .filter(([, pairs]) => pairs.length > 0)
      .map(([day, pairs]) => ({
        id: `${user}/${day}`,
        turns: pairs.flatMap((p) => [
          { role: 'user', text: p.query },
          { role: 'assistant', text: p.response },
        ]),
        facts: [],
        questions: [],
        roleCard: { name: record.name ?? user },
      })),
  );
}

// ---- JSONL: the generic format, one conversation per line (README: "What each stage keeps") ----

const jsonlLine = z.object({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  language: z.enum(['zh', 'en']).optional(),
  turns: z.array(z.object({ role: z.string().min(1), text: z.string() })).min(1),
  facts: z.array(z.string()).default([]),
  questions: z
    .array(
      z.object({
        question: z.string().min(1),
        /** Absent, null or empty: the question is adversarial, only a decline is correct. */
        answer: z.union([z.string(), z.number()]).nullish(),
        category: z.number().int().optional(),
      }),
    )
    .default([]),
});

export function parseJsonl(text: string): EvalConversation[] {
  const out: EvalConversation[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new DatasetError(`line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
    const c = check(jsonlLine, value, `line ${index + 1}`);
    out.push({
      id: c.id,
      ...(c.language && { language: c.language }),
      turns: c.turns,
      facts: uniqueFacts(c.facts.map((f) => ({ text: f }))),
      questions: c.questions.map((q) => {
        const answer = q.answer === null || q.answer === undefined ? '' : String(q.answer);
        const adversarial = answer.trim() === '' || q.category === 5;
        return {
          question: q.question,
          ...(!adversarial && { answer }),
          ...(q.category !== undefined && { category: q.category }),
          adversarial,
        };
      }),
    });
  });
  return out;
}
