import { chineseScript, type Memory } from '@memfade/core';
import type { Product, SimMemory } from './product.js';

/**
 * A memory's input, as the checker holds it against what memfade did with it: a missing or wrong
 * card named, product data under memfade's names refused as such, a memory the product wrote wrong
 * refused naming the field (and the language), one in traditional characters kept in them.
 */
export function inputFindings(seen: {
  memory: SimMemory;
  doc: Memory;
  stage: string;
  due: string;
  reason: string | undefined;
  product: Product;
  /** The product edited it during the night (an edit may have mended what it wrote wrong). */
  edited: boolean;
}): { check: string; detail: string }[] {
  const { memory, doc, stage, due, reason, product } = seen;
  const findings: { check: string; detail: string }[] = [];
  const add = (check: string, detail: string) => findings.push({ check, detail });
  if (!memory.hasCard && stage !== 'raw' && doc.compression?.[stage as 'v1']?.skipped === undefined)
    add(
      'no role card',
      `${memory.id} has no role card (${memory.userId}/${memory.partnerId}) but reached ${stage}`,
    );
  // A missing card is named as the product keys cards: by user, or by user and persona.
  const byPersona = JSON.stringify(product.mapping ?? {}).includes('"partnerId":"partnerId"');
  // (A memory with a field of memfade's name holding the product's data fails for that first.)
  if (
    !memory.hasCard &&
    !memory.badCard &&
    !memory.collidesAt &&
    reason &&
    byPersona &&
    !reason.includes(memory.partnerId)
  )
    add('error names the wrong card', `${memory.id} (${memory.userId}/${memory.partnerId}): ${reason}`);
  // Refused as the product's data where the product put none (memfade's own document shape).
  if (!memory.collidesAt && reason?.includes("holds the product's data"))
    add("refused as the product's data", `${memory.id}: ${reason}`);
  // (A memory with a field of memfade's name holding the product's data fails for that first.)
  if (memory.badCard && !memory.collidesAt && stage !== due && reason && !reason.includes('personality'))
    add('error does not name the field', `${memory.id}'s card has a number as personality: ${reason}`);
  // A memory the product wrote wrong: nothing written to it, and its reason names it and the field
  // as the product names it (an edit may have mended it).
  const { spoiled } = memory;
  if (spoiled && !seen.edited) {
    if (stage !== 'raw' || doc.compression?.v1 || doc.compression?.v2)
      add('bad input compressed', `${memory.id} (${spoiled.kind} at ${spoiled.field}) reached ${stage}`);
    else if (reason && !(reason.includes(memory.id) && reason.includes(spoiled.field)))
      add(
        'error does not name the field',
        `${memory.id} (${spoiled.kind}) should name ${spoiled.field}: ${reason}`,
      );
    else if (reason && spoiled.says && !reason.includes(`written in ${spoiled.says}`))
      add('error does not name the language', `${memory.id} is in ${spoiled.says}: ${reason}`);
  }
  // A memory in traditional characters: its stages in them too, and none refused for its script.
  if (memory.traditional) {
    const texts = [doc.compression?.v1?.compressedContent, doc.compression?.v2?.coreMemory];
    for (const text of texts)
      if (text && chineseScript(text) === 'simplified')
        add(
          'script changed',
          `${memory.id} is in traditional characters, a stage is not: ${text.slice(0, 80)}`,
        );
    if (reason?.includes('traditional Chinese characters'))
      add('refused for its script', `${memory.id}: ${reason}`);
  }
  return findings;
}

/** Every string a recorded request body holds (its prompt parts, wherever the SDK put them). */
function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

/**
 * Who said each turn, as the model was told (the `<memory>` block of every request): a product that
 * stores each turn's sender by id (sendTurnsById) must reach the model as `user:` and `assistant:`,
 * never as the ids themselves (read so, the memory is of two strangers, and nothing else says so).
 */
export function speakerFindings(bodies: unknown[], product: Product): { check: string; detail: string }[] {
  const ids = new Set<string>();
  for (const doc of product.docs)
    for (const key of ['uid', 'companion', 'userId', 'partnerId'])
      if (doc[key] !== undefined) ids.add(String(doc[key]));
  const findings: { check: string; detail: string }[] = [];
  for (const body of bodies)
    for (const text of stringsIn(body))
      for (const [, block] of text.matchAll(/<memory>\n([\s\S]*?)\n<\/memory>/g))
        for (const [, label] of block!.matchAll(/^([^\s:]{1,40}): /gm))
          if (ids.has(label!) && findings.length < 3)
            findings.push({
              check: 'speaker unread',
              detail: `a turn reached the model as said by ${label}`,
            });
  return findings;
}

/** A memory the model's reply failed: its failed job holds it until the next night (20 h) or retry-failed. */
const HELD_BY_FAILED_JOB = /\breply (?:refused|truncated|invalid)\b/u;

/**
 * After the quiet nights nothing transient is left in its way: a memory the product wrote right,
 * with its card, still short of its stage with a reason recorded is refused for good, night after
 * night, for a reason the product cannot mend (a gate its own compressor fails, a name it cannot
 * read). Not one the model's reply failed (refused, truncated, invalid after a repair): its failed
 * job holds it until it expires (20 h: the next night, queue registry.ts) or `retry-failed`, and
 * the quiet nights come sooner than that.
 */
export function standingRefusal(
  memory: SimMemory,
  stage: string,
  due: string,
  reason: string,
): { check: string; detail: string }[] {
  const wroteRight = memory.hasCard && !memory.badCard && !memory.collidesAt && !memory.spoiled;
  if (!wroteRight || HELD_BY_FAILED_JOB.test(reason)) return [];
  return [
    {
      check: 'stage refused for good',
      detail: `${memory.id} is ${stage}, due ${due}, after the quiet nights: ${reason}`,
    },
  ];
}
