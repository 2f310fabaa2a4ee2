import type { Embedder } from '@memfade/core';

const HAN = /\p{Script=Han}/u;

/** FNV-1a: fast, well-spread 32-bit hashes for feature hashing. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Character 1-3-grams of Han runs; words and character trigrams of everything else. */
function features(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase();
  const chars = [...lower];
  for (let i = 0; i < chars.length; i++) {
    if (!HAN.test(chars[i]!)) continue;
    out.push(chars[i]!);
    if (i + 1 < chars.length && HAN.test(chars[i + 1]!)) out.push(chars[i]! + chars[i + 1]!);
    if (i + 2 < chars.length && HAN.test(chars[i + 1]!) && HAN.test(chars[i + 2]!)) {
      out.push(chars[i]! + chars[i + 1]! + chars[i + 2]!);
    }
  }
  for (const word of lower.match(/[a-z0-9]+/g) ?? []) {
    out.push(`w:${word}`);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) out.push(`t:${padded.slice(i, i + 3)}`);
  }
  return out;
}

/**
 * An offline embedder by feature hashing (the signed hashing trick), L2-normalised. It needs no
 * model and no network, works on Chinese, and gives similar texts similar vectors.
 */
export class HashingEmbedder implements Embedder {
  readonly model = 'hashing-ngram-v1';

  constructor(readonly dimensions = 256) {}

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.embedOne(text));
  }

  private embedOne(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    for (const feature of features(text)) {
      const hash = fnv1a(feature);
      vector[hash % this.dimensions]! += hash & 0x80000000 ? -1 : 1;
    }
    const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
    return norm === 0 ? vector : vector.map((v) => v / norm);
  }
}
