import { measureLength } from '@memfade/core';
import type { Unit } from './scoring.js';
import type { Selection } from './selection.js';
import { runsOf } from './statements.js';

/**
 * A core memory that reaches its configured range where V1 leaves room for it. The greedy selection (selection.ts
 * select) takes the most information per character first, so a long, telling sentence that no longer fits is left out
 * and V2 ends under its range. Here the statements are chosen as a whole: of the sets whose length lands in `goal`, the
 * one that tells most (a knapsack over their lengths). A run of statements leaning on each other is kept up to one of
 * them, or not at all; each one's worth is counted alone (its keys and bonus, as scoring.ts weighs them, and `extra`).
 */
export function fit(
  units: Unit[],
  goal: { min: number; max: number },
  how: Selection,
  extra: (u: Unit) => number,
  joins: number,
): Unit[] | undefined {
  const room = goal.max - (how.base ?? 0) + joins; // selection costs count a join as 1: `joins` is what one takes
  if (room <= 0) return undefined;
  const groups = runsOf(units, (run, u) => u.needs === run.at(-1));
  const options = groups.map((run) => {
    let [cost, worth] = [0, 0];
    return run.flatMap((u, k) => {
      cost += how.cost(u) - 1 + joins;
      worth += [...u.keys.values()].reduce((sum, w) => sum + w, u.bonus + extra(u));
      const ends = !u.orphan && !u.filler && !u.question;
      return ends ? [{ upTo: k + 1, cost, worth }] : [];
    });
  });
  // best[c]: the most worth sets of estimated length c hold; pick[g][c]: group g's option there.
  let best = new Float64Array(room + 1).fill(-1);
  best[0] = 0;
  const pick = options.map(() => new Uint8Array(room + 1));
  options.forEach((group, g) => {
    const next = best.slice();
    group.forEach((option, o) => {
      for (let c = room; c >= option.cost; c--) {
        const before = best[c - option.cost]!;
        if (before >= 0 && before + option.worth > next[c]!) {
          next[c] = before + option.worth;
          pick[g]![c] = o + 1;
        }
      }
    });
    best = next;
  });
  // The estimates are each statement shown alone: a set rendered together is as long or shorter.
  const order = [...best.keys()]
    .filter((c) => best[c]! >= 0 && c >= goal.min - (how.base ?? 0))
    .sort((a, b) => best[b]! - best[a]! || b - a);
  for (const c of order.slice(0, 16)) {
    const chosen: Unit[] = [];
    for (let g = options.length - 1, left = c; g >= 0 && left > 0; g--) {
      const o = pick[g]![left]!;
      if (!o) continue;
      chosen.push(...groups[g]!.slice(0, options[g]![o - 1]!.upTo));
      left -= options[g]![o - 1]!.cost;
    }
    chosen.sort((a, b) => a.index - b.index);
    const length = measureLength(how.render(chosen));
    const whole = chosen.every((u) => !u.needs || chosen.includes(u.needs)); // a he / she further back (antecedents.ts)
    if (length >= goal.min && length <= goal.max && whole) return chosen;
  }
  return undefined;
}
