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

/** The file's conversations; an error names the file (of several given) and its line or field. */
export async function loadDataset(file: string, format: EvalFormat): Promise<EvalConversation[]> {
  const text = await readFile(file, 'utf8');
  try {
    return parse(text, file, format);
  } catch (error) {
    if (error instanceof DatasetError && !error.message.startsWith(file))
      throw new DatasetError(`${file}: ${error.message}`);
    throw error;
  }
}

function parse(text: string, file: string, format: EvalFormat): EvalConversation[] {
  switch (format) {
    case 'locomo':
      return parseLocomo(parseJson(text, file));
    case 'kdconv':
      return parseKdconv(parseJson(text, file));
    case 'memorybank':
      return parseMemorybank(parseJson(text, file));
    case 'dulemon':
      return parseDulemon(text);
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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** LoCoMo's session time, "1:56 pm on 8 May, 2023", as a date (UTC: the set gives no zone); undefined if unreadable. */
export function locomoDate(text: unknown): Date | undefined {
  if (typeof text !== 'string') return undefined;
  const m = text.match(/(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[5]!.slice(0, 3).toLowerCase());
  if (month < 0) return undefined;
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
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
    // Where each question's evidence lies, read once per conversation rather than once per session.
    const whereFound = sample.qa.map((q) => evidenceSessions(q.evidence));
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
      const own = sample.qa.filter((_, i) => {
        const where = whereFound[i]!;
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
      const date = locomoDate(sample.conversation[`session_${n}_date_time`]);
      // Two people talk: the first speaker is taken as the user, the second as the persona.
      const [userName, persona] = [sample.conversation.speaker_a, sample.conversation.speaker_b].map((v) =>
        typeof v === 'string' && v ? v : undefined,
      );
      out.push({
        id: `${sample.sample_id}/session_${n}`,
        thread: sample.sample_id,
        language: 'en',
        turns,
        facts,
        questions,
        userRole: userName ?? raw[0]!.speaker,
        ...(date && { date }),
        ...((persona || userName) && {
          roleCard: { ...(persona && { name: persona }), ...(userName && { userName }) },
        }),
      });
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
    userRole: 'user',
    // The entity the dialogue is about: what its memory must name.
    ...(dialogue.name && { topic: dialogue.name }),
  }));
}

// ---- MemoryBank: one memory per user per day; no gold facts ----

const memorybankSchema = z.record(
  z.string(),
  z.object({
    name: z.string().optional(),
    meta_information: z
      .object({
        name: z.string().optional(),
        personality: z.string().optional(),
        hobbies: z.string().optional(),
        speaking_style: z.string().optional(),
      })
      .optional(),
    history: z.record(z.string(), z.array(z.object({ query: z.string(), response: z.string() }))),
  }),
);

/**
 * MemoryBank has no gold facts and no gold answers (its probing questions come without them):
 * it reports lengths, how the memories read and the facts the extractor finds. Each user's
 * profile (name, personality, hobbies, speaking style) becomes the role card, so the persona is
 * exercised; the day is the memory's date.
 */
export function parseMemorybank(data: unknown): EvalConversation[] {
  const users = check(memorybankSchema, data, 'memorybank');
  return Object.entries(users).flatMap(([user, record]) => {
    const meta = record.meta_information ?? {};
    const roleCard = {
      userName: meta.name ?? record.name ?? user,
      ...(meta.personality && { personality: meta.personality }),
      ...(meta.hobbies && { hobbies: meta.hobbies }),
      ...(meta.speaking_style && { speakingStyle: meta.speaking_style }),
    };
    return Object.entries(record.history)
      .filter(([, pairs]) => pairs.length > 0)
      .map(([day, pairs]) => {
        const date = /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T12:00:00Z`) : undefined;
        return {
          id: `${user}/${day}`,
          thread: user,
          turns: pairs.flatMap((p) => [
            { role: 'user', text: p.query },
            { role: 'assistant', text: p.response },
          ]),
          facts: [],
          questions: [],
          roleCard,
          userRole: 'user',
          ...(date && !Number.isNaN(date.getTime()) && { date }),
        };
      });
  });
}

// ---- DuLeMon: one session per line, word-segmented Chinese; the bot's persona is the role card ----

const dulemonLine = z.object({
  bot_persona: z.array(z.string()).default([]),
  conversation: z.array(z.string()).min(1),
});

/** DuLeMon's text is segmented with spaces: joined again between Chinese characters, kept between Latin words. */
export function unsegment(text: string): string {
  return text.replace(/(?<=[^A-Za-z0-9])\s+|\s+(?=[^A-Za-z0-9\s])/g, '').trim();
}

export function parseDulemon(text: string): EvalConversation[] {
  const out: EvalConversation[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new DatasetError(`dulemon line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
    const session = check(dulemonLine, value, `dulemon line ${index + 1}`);
    const turns = session.conversation.map((utterance) => {
      // "Usr: 下午 一起 去 打球 吗\tU1": the speaker, the words, the persona fact it uses.
      const [said = ''] = utterance.split('\t');
      const m = said.match(/^(Usr|Bot)\s*[:：]\s*(.*)$/);
      return { role: m?.[1] === 'Bot' ? 'assistant' : 'user', text: unsegment(m ? m[2]! : said) };
    });
    const persona = session.bot_persona.map((p) => unsegment(p.replace(/^B\d+\s*[:：]\s*/, '')));
    out.push({
      id: `dulemon/${out.length + 1}`,
      language: 'zh',
      turns,
      facts: [],
      questions: [],
      userRole: 'user',
      ...(persona.length && { roleCard: { personality: persona.join('；') } }),
    });
  });
  return out;
}

// ---- JSONL: the generic format, one conversation per line (README: "What each stage keeps") ----

const roleCardSchema = z.object({
  name: z.string().optional(),
  userName: z.string().optional(),
  personality: z.string().optional(),
  values: z.array(z.string()).optional(),
  hobbies: z.string().optional(),
  speakingStyle: z.string().optional(),
  language: z.enum(['zh', 'en']).optional(),
});

const jsonlLine = z.object({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  /** Whose conversations these are (a person's): all of one thread fall in one half (split.ts). */
  thread: z.string().min(1).optional(),
  language: z.enum(['zh', 'en']).optional(),
  /** The persona the memory is compressed for (memfade's role card fields). */
  roleCard: roleCardSchema.optional(),
  /** Which role is the user's (default `user`, else the first speaker). */
  userRole: z.string().min(1).optional(),
  /** The entity the conversation is about: the measure "topic named" looks for it. */
  topic: z.string().min(1).optional(),
  /** When the conversation took place (ISO 8601): the memory's date. */
  date: z
    .union([z.iso.datetime({ offset: true }), z.iso.date()], {
      error: 'expected an ISO 8601 date or date-time (2023-05-08, 2023-05-08T13:56:00Z)',
    })
    .optional(),
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
      ...(c.thread && { thread: c.thread }),
      ...(c.language && { language: c.language }),
      ...(c.roleCard && { roleCard: c.roleCard }),
      ...(c.userRole && { userRole: c.userRole }),
      ...(c.topic && { topic: c.topic }),
      ...(c.date && { date: new Date(c.date) }),
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
