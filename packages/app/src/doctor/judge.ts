import type { Mapping } from '@memfade/db';
import { describePairs } from './card-pairs.js';
import { CARD_PROBLEM_EFFECT, unmappedRoleEffect } from './checks.js';
import type { DoctorReport } from './report.js';

/** Sorts what was found into what stops memfade (errors) and what only hurts it (warnings). */
export function judge(report: DoctorReport, mapping: Mapping): void {
  const { errors, warnings } = report;
  if (report.memories === 0)
    errors.push('the memories collection is empty (or MONGODB_DB names another database)');
  for (const field of report.fields) {
    const bad = field.missing + field.wrongType;
    if (report.sampled > 0 && bad === report.sampled)
      errors.push(
        `${field.key} (${field.field}): no sampled memory has ${field.expected} (e.g. ${field.example})`,
      );
    else if (bad > 0)
      warnings.push(
        `${field.key} (${field.field}): ${bad} of ${report.sampled} sampled memories lack ${field.expected} (e.g. ${field.example}); they will fail as bad input`,
      );
  }
  judgeCards(report);
  for (const role of report.unmappedRoles)
    warnings.push(
      `conversation role ${JSON.stringify(role.role)} is not mapped to user or assistant: ${role.turns} turns in ${role.memories} of ${report.sampled} sampled memories (e.g. ${role.example}); ${unmappedRoleEffect(role.role, mapping)}`,
    );
  judgeIndexes(report);
  const { redis } = report;
  if (!redis.reachable) errors.push(`Redis at ${redis.address} (REDIS_URL): ${redis.error}`);
  else {
    if (redis.maxmemoryPolicy && redis.maxmemoryPolicy !== 'noeviction')
      errors.push(
        `Redis maxmemory-policy is ${redis.maxmemoryPolicy}: BullMQ needs noeviction (an evicted key is a lost job)`,
      );
    if (redis.aof === false && redis.rdb === false)
      warnings.push("Redis keeps nothing on disk (no AOF, no RDB): a restart loses the night's queue");
  }
  if (report.vectorStore.status.startsWith('not writable'))
    errors.push(`vector store: ${report.vectorStore.status}`);
  if (report.tonight.sync === undefined) warnings.push(report.tonight.note);
  judgeBudget(report);
}

/**
 * Tonight's estimate against the night's budget: a night that would pass it stops requesting model
 * calls there, and what is left waits for the next nights (queue/budget.ts). Said before it happens.
 */
function judgeBudget(report: DoctorReport): void {
  const { budget, tonight } = report;
  const share = (estimate: number, limit: number) => Math.min(100, Math.round((100 * limit) / estimate));
  const tokens = tonight.inputTokens + tonight.outputTokens;
  // Batch mode's price when it has one: scheduled nights use it by default.
  const cost = tonight.batch ?? tonight.sync;
  if (budget.usd > 0 && cost !== undefined && cost > budget.usd)
    report.warnings.push(
      `tonight's estimate ($${cost.toFixed(2)}) passes NIGHT_BUDGET_USD ($${budget.usd}): about ${share(cost, budget.usd)}% of tonight's model calls fit; the rest stay due for the following nights`,
    );
  if (budget.tokens > 0 && tokens > budget.tokens)
    report.warnings.push(
      `tonight's estimate (~${tokens} tokens) passes NIGHT_BUDGET_TOKENS (${budget.tokens}): about ${share(tokens, budget.tokens)}% of tonight's model calls fit; the rest stay due for the following nights`,
    );
}

function judgeCards(report: DoctorReport): void {
  const { errors, warnings } = report;
  const cards = report.roleCards;
  const m = cards.memories;
  if (report.sampled > 0 && m.withCard === 0 && m.missing + m.invalid > 0)
    errors.push(
      `no sampled memory has a valid role card, keyed by ${cards.keyedBy} (e.g. memory ${m.example})`,
    );
  else if (m.missing + m.invalid > 0)
    warnings.push(
      `${m.missing} sampled memories have no role card (keyed by ${cards.keyedBy})${describePairs(m.missingPairs)} and ${m.invalid} an invalid one (e.g. memory ${m.example}); they will fail as bad input`,
    );
  for (const p of cards.problems)
    warnings.push(
      `role card field ${p.field} (${p.key}) is ${p.value}: ${p.expected}, in ${plural(p.cards, 'card')} used by ${plural(p.memories, 'sampled memory', 'sampled memories')} (e.g. card ${p.example}); ${CARD_PROBLEM_EFFECT}`,
    );
  for (const d of cards.duplicates.keys)
    warnings.push(
      `${d.count} role cards with one key ${JSON.stringify(d.key)} in ${cards.collection}: ${d.ids.map(String).join(', ')}; memfade uses ${String(d.ids[0])} (the most recently updated by mapping.roleCard.updatedAt, then the smallest _id) and logs a warning`,
    );
  if (cards.duplicates.total > cards.duplicates.keys.length)
    warnings.push(
      `${cards.duplicates.total - cards.duplicates.keys.length} more keys held by several role cards`,
    );
  for (const field of report.roleCardFields)
    if (cards.used > 0 && field.found === 0)
      warnings.push(`${field.key} (${field.field}): no role card found has it; check the mapping`);
}

/**
 * The sampled memories a night will fail as bad input (a field, no role card, an invalid one):
 * doctor's last line says so instead of a bare "ready." (docs/cli.md "doctor").
 */
export function willFail(report: DoctorReport): number {
  const m = report.roleCards.memories;
  return report.badInput.reduce((n, p) => n + p.count, 0) + m.missing + m.invalid;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function judgeIndexes(report: DoctorReport): void {
  const { warnings } = report;
  const own = report.indexes.filter((i) => i.owner === 'memfade' && !i.present);
  if (own.length)
    warnings.push(
      `${own.length} indexes missing on memfade's own collections: every app creates them when it opens (or run memfade doctor --create-indexes)`,
    );
  for (const index of report.indexes.filter((i) => i.owner === 'product' && !i.present))
    warnings.push(
      `index ${index.name} missing on ${index.collection}: memfade works without it, slower: ${index.withoutIt}. memfade creates no index on your collections: run memfade doctor --create-indexes, or the command in the index table`,
    );
  for (const index of report.uniqueOnYours)
    warnings.push(
      `index ${index.name} on ${index.collection} is unique (an earlier memfade made it so): MongoDB refuses a second document with the same ${Object.keys(index.keys).join(', ')}, your product's writes too; memfade does not need it unique: drop it (db.getCollection(${JSON.stringify(index.collection)}).dropIndex(${JSON.stringify(index.name)})) and run memfade doctor --create-indexes`,
    );
}
