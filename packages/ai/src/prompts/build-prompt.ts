import { type CompressionRequest, type Language, measureLength, type TargetStage } from '@memfade/core';
import { instructions, PROMPT_VERSIONS, personalitySection, TOOL_NAMES } from './instructions.js';

export interface StagePrompt {
  stage: TargetStage;
  language: Language;
  /** Stable prefix, part 1: the stage's instructions (shared by every memory in this language). */
  instructions: string;
  /** Stable prefix, part 2: the role card (shared by every memory of this user). */
  personality: string;
  /** The memory in its data block, then its target length. */
  user: string;
  toolName: string;
  promptVersion: string;
}

/** The neutral form of a tag's '<' inside the data block: the instructions' delimiters never use it. */
const NEUTRAL_OPENER = '＜';

/** Letters of other scripts (Cyrillic, Greek) that look like those of "memory". */
const LOOKALIKES: Record<string, string> = { е: 'e', о: 'o', у: 'y', м: 'm', г: 'r', ο: 'o', ε: 'e', μ: 'm' };

/**
 * One character as a model reads it: styled, full-width and accented forms folded to their base
 * letters (NFKD), invisible characters and combining marks gone, lookalike letters folded, lower
 * case. The neutral opener is kept as it is, so neutralising twice changes nothing.
 */
function asRead(ch: string): string {
  if (ch.charCodeAt(0) < 0x80) return ch.toLowerCase();
  if (ch === NEUTRAL_OPENER) return ch;
  const base = ch
    .normalize('NFKD')
    .replace(/[\p{Cf}\p{Mn}]/gu, '')
    .toLowerCase();
  return LOOKALIKES[base] ?? base;
}

/** Every character whose reading (asRead) starts an opener. */
const OPENER_CHARS = /[<&\\\u226e\ufe60\ufe64\ufe68\uff06\uff3c]/;

/**
 * A memory tag as read: an opener ('<', or an escape of it a model decodes in its head: an HTML
 * entity, \u003c, \x3c), spaces, any slashes (also '\/' as in JSON), spaces, "memory".
 */
const TAG = /(<|&lt;|&#0*60;|&#x0*3c;|\\u003c|\\x3c)\s*[/\\⁄∕]*\s*memory/g;

/**
 * Makes memory text safe to place between <memory> and </memory>: nothing in it reads as a
 * memory tag, so it can neither end the block early nor open a new one. The opener of anything
 * that reads as <memory> or </memory> (whatever spaces, case, full-width, styled or lookalike
 * letters, invisible characters or escapes it uses) becomes a full-width '＜'; the rest of the
 * text is left as it is.
 */
export function escapeDataBlock(text: string): string {
  // Most memories have nothing that reads as an opener: no need to read them character by character.
  if (!OPENER_CHARS.test(text)) return text;
  // The text as read, with where each of its UTF-16 units came from in the original.
  let read = '';
  const origin: number[] = [];
  let at = 0;
  for (const ch of text) {
    const folded = asRead(ch);
    read += folded;
    for (let i = 0; i < folded.length; i++) origin.push(at);
    at += ch.length;
  }
  let out = '';
  let done = 0;
  for (const match of read.matchAll(TAG)) {
    const first = origin[match.index]!;
    const lastUnit = match.index + match[1]!.length - 1;
    const last = origin[lastUnit]!;
    const end = last + (text.codePointAt(last)! > 0xffff ? 2 : 1);
    out += text.slice(done, first) + NEUTRAL_OPENER;
    done = end;
  }
  return out + text.slice(done);
}

function targetLine(stage: TargetStage, request: CompressionRequest): string {
  const { min, max } = request.targetLength;
  const length = measureLength(request.text);
  const field = stage === 'v1' ? 'compressedContent' : 'coreMemory';
  return request.language === 'zh'
    ? `这条记忆约${length}字；${field} 应为${min}-${max}字。`
    : `This memory is about ${length} characters long; ${field} should be ${min}-${max} characters.`;
}

export function buildPrompt(stage: TargetStage, request: CompressionRequest): StagePrompt {
  const { language } = request;
  const intro = language === 'zh' ? '以下是需要压缩的记忆数据：' : 'Here is the memory data to compress:';
  return {
    stage,
    language,
    instructions: instructions(stage, language),
    personality: personalitySection(request.personality, language),
    user: `${intro}\n<memory>\n${escapeDataBlock(request.text)}\n</memory>\n\n${targetLine(stage, request)}`,
    toolName: TOOL_NAMES[stage],
    promptVersion: PROMPT_VERSIONS[stage][language],
  };
}

/** The repair turn: what was wrong, with the measured numbers, in the memory's language. */
export function repairMessage(problems: string[], prompt: StagePrompt): string {
  return prompt.language === 'zh'
    ? `你的上一个回答不符合要求：${problems.join('；')}。请修正后重新通过 ${prompt.toolName} 提交完整结果。`
    : `Your previous answer did not meet the requirements: ${problems.join('; ')}. Fix it and submit the complete result again with ${prompt.toolName}.`;
}
