import { measureLength, type RoleCard } from '@memfade/core';
import { cached } from './cache.js';
import { gain, sumOf, type Unit } from './scoring.js';

export interface Selection {
  /** Length cost of keeping `unit` (its text plus any attribution it brings), as estimated. */
  cost: (unit: Unit) => number;
  /** How much shorter clauses are favoured: 0 ranks by information alone, 1 by information per character. */
  density: number;
  render: (units: Unit[]) => string;
  /** Length the rendering takes before any unit (a topic line). */
  base?: number;
  /** Kept before any other, with what it leans on, where it fits: what the stage is about. */
  first?: Unit;
}

/** What a statement with an "it" is worth while the statement naming its thing is not kept. */
const UNMEANT_FACTOR = 0.7;
/** How many more units the second, exact pass tries to fit after the estimated one. */
const EXACT_TRIES = 24;

/**
 * Keeps statements by information per length (scoring.ts weighs them), each time the one that adds most to what is
 * already kept (a fact said again is worth nothing: novelty, as in MMR), until nothing that adds information fits in
 * `target.max`; filler only when the extract would otherwise stay under `target.min`. Lengths are estimated per unit
 * (rendering the whole extract per candidate is quadratic), then checked on the rendered text. Returned in input order.
 */
export function select(units: Unit[], target: { min: number; max: number }, how: Selection): Unit[] {
  const byIndex = (a: Unit, b: Unit) => a.index - b.index;
  const chosen = new Set<Unit>();
  const kept = new Set<string>();
  /** The unit and what it leans on that is not kept yet: what keeping it takes. */
  const chainOf = (unit: Unit) => {
    const chain: Unit[] = [];
    for (let u: Unit | undefined = unit; u && !chosen.has(u); u = u.needs) chain.push(u);
    return chain;
  };
  const chainCost = (chain: Unit[]) => chain.reduce((sum, u) => sum + how.cost(u), 0);
  // A statement said again word for word is kept once, even to reach the minimum (the length gate records it).
  const firsts = new Set(unique(units));
  // Filler, and an orphan (it leans on what it cannot be kept with), only to reach the minimum.
  const open = new Set(units.filter((u) => !u.filler && !u.orphan && firsts.has(u)));
  /** The stage's estimated length: the units kept, each at its cost. */
  let estimate = how.base ?? 0;
  const keep = (chain: Unit[]) => {
    for (const u of chain) {
      chosen.add(u);
      open.delete(u);
      estimate += how.cost(u);
      for (const key of u.keys.keys()) kept.add(key);
    }
  };
  const first = how.first && chainOf(how.first);
  if (first && estimate + chainCost(first) <= target.max) {
    keep(first);
    // Next, where it fits, what leans on it: the same loss ("…the way she taught you" after the grandma).
    for (const u of units)
      if (open.has(u) && u.needs && chosen.has(u.needs) && estimate + how.cost(u) <= target.max) keep([u]);
  }
  const worth = (unit: Unit) => {
    const chain = chainOf(unit);
    const cost = chainCost(chain);
    // An "it" whose thing is not kept reads as about nothing: worth less, not dropped (a fact may still be in it).
    const unmeant = chain.some((u) => u.means && !chosen.has(u.means) && !chain.includes(u.means));
    const value = chain.reduce((sum, u) => sum + gain(u, kept), 0) / cost ** how.density;
    return { chain, cost, value: unmeant ? value * UNMEANT_FACTOR : value };
  };
  // Lazy greedy (worth only falls as more is kept): the best last-computed value is recomputed, taken if still best.
  const cached = new Map([...open].map((unit) => [unit, worth(unit).value]));
  const better = (a: Unit, va: number, b: Unit | undefined, vb: number) =>
    va > vb || (va === vb && b !== undefined && a.index < b.index);
  while (open.size) {
    let [top, topValue]: [Unit | undefined, number] = [undefined, 0];
    for (const unit of open) {
      const value = cached.get(unit)!;
      if (better(unit, value, top, topValue)) [top, topValue] = [unit, value];
    }
    if (!top || topValue <= 0) break;
    const now = worth(top);
    cached.set(top, now.value);
    let beaten = false; // no array copied on each pass: this loop is the compressor's hottest
    for (const unit of open) beaten ||= unit !== top && better(unit, cached.get(unit)!, top, now.value);
    if (beaten) continue;
    if (now.value <= 0) break;
    open.delete(top);
    if (estimate + now.cost > target.max) continue;
    keep(now.chain);
  }
  const list = () => [...chosen].sort(byIndex);
  /** The stage's rendered length, with `chain` kept too. */
  const length = (chain: Unit[] = []) => measureLength(how.render([...chosen, ...chain].sort(byIndex)));
  // Over the maximum after all (an attribution, joins): drop the least informative unleaned-on statement.
  const dropToMax = () => {
    while (chosen.size > 1 && length() > target.max) {
      const needed = new Set([...chosen].map((u) => u.needs));
      const worst = rank(list(), how.density).findLast((u) => !needed.has(u));
      if (!worst) break;
      chosen.delete(worst);
    }
  };
  dropToMax();
  // Room left, or under the minimum: the rest by information (filler last) while it fits; past the minimum, only gains.
  const rest = units.filter((u) => !chosen.has(u) && firsts.has(u));
  const weak = (u: Unit) => Number(u.filler || u.orphan);
  const gains = new Map(rest.map((u) => [u, gain(u, kept)]));
  rest.sort((a, b) => weak(a) - weak(b) || gains.get(b)! - gains.get(a)! || byIndex(a, b));
  // What fits of the rest, in its order: estimated, or (`exact`) rendered each time while under the minimum.
  const fill = (exact: boolean) => {
    let current = length();
    let tries = 0;
    for (const unit of rest) {
      const short = current < target.min;
      if (exact && !short) break;
      if (chosen.has(unit)) continue;
      if (!short && (weak(unit) || gain(unit, kept) <= 0)) continue;
      if (!short && tries++ >= EXACT_TRIES) break;
      const chain = chainOf(unit);
      // What it costs alone is at most what it adds (a shared line's attribution is not repeated):
      // under the maximum that way, it fits without rendering the whole stage again.
      const estimated = current + chainCost(chain);
      const trial = !exact && estimated <= target.max ? estimated : length(chain);
      if (trial > target.max) continue;
      keep(chain);
      current = trial;
    }
  };
  fill(false);
  fill(true); // estimates run high: a stage they left under its minimum is filled again, measured each time
  dropToMax(); // the estimates above are upper bounds: the stage as rendered is measured once more
  // Never nothing: a stage too small for any statement keeps the one (with what it leans on) that overruns it
  // least, no orphan or filler while one is left (the length gate records it; by density, a long one won).
  if (chosen.size === 0) {
    const telling = units.filter((u) => !u.filler && !u.orphan);
    const cost = (u: Unit) => chainCost(chainOf(u));
    // The least costly; of those, the most telling (a stable sort keeps the ranking's order).
    const [best] = rank(telling.length ? telling : units, how.density).sort((a, b) => cost(a) - cost(b));
    if (best) keep(chainOf(best));
  }
  return list();
}

/** `units` ranked by what each adds to those before it for its length (as `select` judges): a repeat last. */
export function rank(units: Unit[], density: number): Unit[] {
  const kept = new Set<string>();
  const open = [...units];
  const out: Unit[] = [];
  while (open.length) {
    let [bestAt, bestValue] = [0, -1];
    open.forEach((unit, i) => {
      const value = gain(unit, kept) / unit.length ** density;
      if (value > bestValue) [bestAt, bestValue] = [i, value];
    });
    const [best] = open.splice(bestAt, 1);
    out.push(best!);
    for (const key of best!.keys.keys()) kept.add(key);
  }
  return out;
}

/** What statements tell together: each key once, at its weight, and every bonus. */
export function worthOf(units: Unit[]): number {
  const keys = new Map<string, number>();
  for (const u of units)
    for (const [key, weight] of u.keys) keys.set(key, Math.max(keys.get(key) ?? 0, weight));
  return units.reduce((worth, u) => worth + u.bonus, 0) + sumOf(keys);
}

/** The persona's interests as lowercase terms: hobbies and personality words from the role card. */
export function interests(card: RoleCard): string[] {
  return [card.hobbies, card.personality, ...(card.values ?? [])]
    .filter((v): v is string => Boolean(v))
    .flatMap((v) => v.split(/[，,、;；/]+|\s+and\s+/))
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v.length >= 2);
}

/**
 * A statement's words, without marks or spaces: what "said again word for word" compares and V2 matches V1's key
 * points by (core-memory.ts); each text's once (a stage is chosen many times over the same statements).
 */
const words = new Map<string, string>();
export const wordsOf = (text: string) => cached(words, text, () => text.replace(/[\p{P}\s]+/gu, ''), 5_000);

/** Drops statements whose text repeats a kept one (a fact said twice). */
export function unique(units: Unit[]): Unit[] {
  const firsts = new Map<string, Unit>();
  for (const u of units) if (!firsts.has(wordsOf(u.text))) firsts.set(wordsOf(u.text), u);
  return [...firsts.values()];
}

/**
 * The first `n` items of a list (key points, core points), each a statement as shown with what it
 * leans on: one an item already holds is left out, one that holds an item takes its place.
 */
export function listItems(units: Unit[], n: number, show: (u: Unit) => string): string[] {
  const items: string[] = [];
  for (const u of units) {
    if (items.length === n) break;
    const text = show(u);
    if (items.some((item) => item.includes(text))) continue;
    const held = items.findIndex((item) => text.includes(item));
    items[held >= 0 ? held : items.length] = text;
  }
  return items;
}

/** How a stage is chosen after `header`: a unit costs its length as `show` writes it (once), +1 to join. */
export function selection(
  header: string,
  density: number,
  show: (u: Unit) => string,
  render: (units: Unit[]) => string,
  first?: Unit,
): Selection {
  const costs = new Map<Unit, number>();
  const cost = (u: Unit) => cached(costs, u, () => measureLength(show(u)) + 1);
  return { cost, density, base: header ? measureLength(header) + 1 : 0, render, ...(first && { first }) };
}
