import { describe, expect, it } from 'vitest';
import { RULES } from './index.js';
import type { PatternRule, Rule, WordsRule } from './types.js';

/** Every rule of a pack, named by its path ("emotions.grief", "concern.0"). */
function rulesOf(value: unknown, path: string): [string, Rule][] {
  if (value && typeof value === 'object' && 'why' in value) return [[path, value as Rule]];
  if (!value || typeof value !== 'object') throw new Error(`${path} is no rule`);
  return Object.entries(value).flatMap(([key, v]) => rulesOf(v, path ? `${path}.${key}` : key));
}

/** Whether a rule matches a text: a pattern (without its g / y state; a piece whole) or a word list. */
function matches(rule: Rule, text: string): boolean {
  if ('words' in rule) return (rule as WordsRule).words.has(text);
  const { pattern, piece } = rule as PatternRule;
  const flags = pattern.flags.replace(/[gy]/g, '');
  return new RegExp(piece ? `^(?:${pattern.source})$` : pattern.source, flags).test(text);
}

describe.each(Object.entries(RULES))('the %s pack', (_language, pack) => {
  const rules = rulesOf(pack, '');

  it.each(rules)('%s has a why and examples both ways', (_path, rule) => {
    expect(rule.why.length).toBeGreaterThan(10);
    expect(rule.matches.length).toBeGreaterThan(0);
    expect(rule.rejects.length).toBeGreaterThan(0);
  });

  it.each(rules)('%s matches its examples and rejects its counter-examples', (_path, rule) => {
    expect(rule.matches.filter((text) => !matches(rule, text))).toEqual([]);
    expect(rule.rejects.filter((text) => matches(rule, text))).toEqual([]);
  });
});
