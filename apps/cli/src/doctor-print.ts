import type { DoctorReport } from '@memfade/app';
import { dollars } from './run-output.js';
import { table } from './table.js';

/** `memfade doctor`'s report for a terminal (`--json` prints the report itself). */
export function printReport(r: DoctorReport): void {
  console.log(`mapping: ${r.mapping}`);
  console.log(`memories: ${r.memories}, sampled ${r.sampled}`);
  const w = r.writes;
  console.log(
    w.mode === 'side'
      ? `writes: side collection ${w.collection} (${w.sideDocuments} documents, enrolled through ${w.enrolledThrough ?? 'nothing yet'}); the product's memory documents are never written`
      : `writes: memfade's fields in ${w.collection}${w.prefix ? ` under ${w.prefix}.` : ' beside the product fields'}`,
  );
  if (w.turns)
    console.log(`turns: joined from ${w.turns.collection} by ${w.turns.memoryId}, in ${w.turns.order} order`);
  console.log('');
  console.log(
    table(
      ['field', 'mapping key', 'expected', 'ok', 'missing', 'wrong type', 'example'],
      r.fields.map((f) => [f.field, f.key, f.expected, f.ok, f.missing, f.wrongType, f.example ?? '']),
    ),
  );
  const d = r.dates;
  const end = (e: DoctorReport['dates']['oldest']) => (e ? `${e.date ?? 'unreadable'} (${e.id})` : 'none');
  console.log(
    `\ncreated (${d.collection}.${d.field}, ${d.format}): oldest ${end(d.oldest)}, newest ${end(d.newest)}; ` +
      `${d.before2000} before 2000, ${d.future} more than a day ahead`,
  );
  for (const p of r.badInput)
    console.log(`bad input: ${p.count} × ${p.field} (e.g. ${p.example}): ${p.message}`);
  const cards = r.roleCards;
  const m = cards.memories;
  console.log(
    `\nrole cards: ${cards.documents} in ${cards.collection}, keyed by ${cards.keyedBy}; ` +
      `the sampled memories use ${cards.used} (${cards.invalid} invalid)`,
  );
  console.log(
    `memories by role card: ${m.withCard} with a valid card, ${m.missing} without one, ${m.invalid} with an invalid one`,
  );
  if (cards.problems.length)
    console.log(
      table(
        ['card field', 'mapping key', 'value', 'expected', 'cards', 'memories', 'e.g. card'],
        cards.problems.map((p) => [p.field, p.key, p.value, p.expected, p.cards, p.memories, p.example]),
      ),
    );
  if (cards.duplicates.total)
    console.log(`role card keys held by several cards: ${cards.duplicates.total} (listed below)`);
  if (r.roleCardFields.length)
    console.log(`role card fields: ${r.roleCardFields.map((f) => `${f.field} ${f.found}`).join(', ')}`);
  for (const role of r.unmappedRoles)
    console.log(
      `conversation role not mapped: ${role.role} (${role.turns} turns in ${role.memories} memories)`,
    );
  console.log(`languages: zh ${r.languages.zh}, en ${r.languages.en}`);
  const s = r.sizes;
  console.log(`conversation length (characters): p10 ${s.p10}, p50 ${s.p50}, p90 ${s.p90}, max ${s.max}\n`);
  console.log(
    table(
      ['night', 'V1 due', 'V2 due'],
      r.nights.map((n) => [n.night, n.v1, n.v2]),
    ),
  );
  const t = r.tonight;
  const cost = (amount: number | undefined) => (amount === undefined ? 'no price' : dollars(amount));
  console.log(
    `\ntonight with ${t.model}: ${t.calls.v1 + t.calls.v2} model calls, ` +
      `~${t.inputTokens} input and ~${t.outputTokens} output tokens\n` +
      `cost: ${cost(t.sync)} sync, ${cost(t.batch)} in batch mode (${t.note})\n` +
      `night budget: ${r.budget.usd > 0 ? `$${r.budget.usd}` : 'none'} (NIGHT_BUDGET_USD), ` +
      `${r.budget.tokens > 0 ? `${r.budget.tokens} tokens` : 'none'} (NIGHT_BUDGET_TOKENS)\n`,
  );
  for (const c of r.created ?? [])
    console.log(
      c.error
        ? `could not create ${c.collection}.${c.name}: ${c.error}`
        : `created ${c.collection}.${c.name}`,
    );
  console.log(
    table(
      ['collection', 'whose', 'index', 'present', 'to create it'],
      r.indexes.map((i) => [
        i.collection,
        i.owner === 'product' ? 'yours' : 'memfade',
        i.name,
        i.present ? (i.unique ? 'yes (unique)' : 'yes') : 'no',
        i.present ? '' : i.command,
      ]),
    ),
  );
  const redis = r.redis;
  console.log(
    redis.reachable
      ? `\nRedis ${redis.address}: maxmemory-policy ${redis.maxmemoryPolicy ?? 'unknown'}, AOF ${redis.aof ? 'on' : 'off'}, RDB ${redis.rdb === undefined ? 'unknown' : redis.rdb ? 'on' : 'off'}`
      : `\nRedis ${redis.address}: unreachable (${redis.error})`,
  );
  console.log(`vector store (${r.vectorStore.kind}) ${r.vectorStore.where}: ${r.vectorStore.status}\n`);
  for (const warning of r.warnings) console.log(`warning: ${warning}`);
  for (const error of r.errors) console.log(`error: ${error}`);
  const failing = r.willFail;
  console.log(
    r.errors.length
      ? '\nmemfade cannot work on this database as configured.'
      : failing
        ? `\nready, but ${failing} of ${r.sampled} sampled memories will fail as bad input (the warnings above say which and why).`
        : '\nready.',
  );
}
