import { access, constants, stat } from 'node:fs/promises';
import {
  checkIndexes,
  enrolmentWatermark,
  type IndexCheck,
  type Models,
  roleCardsOf,
  sampleMemories,
  transitionsByNight,
} from '@memfade/db';
import { type Inspection, type MemfadeConfig, openForInspection } from '@memfade/service';
import {
  type CardFieldCheck,
  checkCardFields,
  checkFields,
  estimateNight,
  type FieldCheck,
  type NightEstimate,
  type SampleSurvey,
  surveySample,
} from '../doctor-report.js';
import { loadConfig } from '../env.js';
import { dollars } from '../run-output.js';
import { table } from '../table.js';

/** The nights after tonight whose newly due memories doctor counts. */
const NIGHTS_AHEAD = 7;

interface RedisCheck {
  address: string;
  reachable: boolean;
  maxmemoryPolicy?: string;
  aof?: boolean;
  rdb?: boolean;
  error?: string;
}

export interface WritesReport {
  /** `beside`: memfade's own field names; `prefix`: under writes.prefix; `side`: writes.collection. */
  mode: 'beside' | 'prefix' | 'side';
  /** The collection memfade writes its fields to. */
  collection: string;
  /** writes.prefix, in prefix mode. */
  prefix?: string;
  /** Whether the product's memory documents are ever written (never in side-collection mode). */
  productDocumentsWritten: boolean;
  /** Side-collection mode: how many side documents exist, and how far the nightly enrolment has read. */
  sideDocuments?: number;
  enrolledThrough?: string;
  /** Joined turns: the turn collection and its keys. */
  turns?: { collection: string; memoryId: string; order: string };
}

export interface DoctorReport {
  memories: number;
  sampled: number;
  /** The mapping in use: MEMFADE_MAPPING's file, or memfade's own field names. */
  mapping: string;
  fields: FieldCheck[];
  /** Where memfade writes, and whether it writes the product's memory documents at all. */
  writes: WritesReport;
  /** The mapped role card fields and how many found cards hold each (empty with a default card). */
  roleCardFields: CardFieldCheck[];
  badInput: SampleSurvey['problems'];
  roleCards: SampleSurvey['roleCards'];
  languages: SampleSurvey['languages'];
  sizes: SampleSurvey['sizes'];
  nights: { night: string; v1: number; v2: number }[];
  tonight: NightEstimate;
  indexes: IndexCheck[];
  redis: RedisCheck;
  vectorStore: { kind: string; where: string; status: string };
  /** Why memfade cannot work on this database as configured (exit code 1 when any). */
  errors: string[];
  /** What works but should be fixed. */
  warnings: string[];
}

/**
 * `memfade doctor`: what memfade would make of the configured database, tonight and the next
 * nights, without writing anything (no index, no collection, no job).
 */
export async function doctor(options: { json: boolean; sample: number }): Promise<number> {
  const config = loadConfig();
  const inspection = await openForInspection(config);
  try {
    const report = await diagnose(inspection, config, options.sample, new Date());
    if (options.json) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
    return report.errors.length ? 1 : 0;
  } finally {
    await inspection.close();
  }
}

async function diagnose(
  { models, redis }: Inspection,
  config: MemfadeConfig,
  sampleSize: number,
  now: Date,
): Promise<DoctorReport> {
  const { policy } = config;
  const memories = await models.memories.countDocuments({}).exec();
  const sample = await sampleMemories(models, sampleSize);
  const cards = await roleCardsOf(models, [...new Set(sample.map((d) => String(d.userId ?? '')))]);
  const survey = surveySample(sample, cards, policy, now);
  const byNight = await transitionsByNight(models, policy, now, NIGHTS_AHEAD);
  const provider = config.provider;
  const tonight = estimateNight(survey, byNight[0]!, policy, {
    name: provider.provider === 'offline' ? 'offline' : (provider.model ?? '(MEMFADE_MODEL unset)'),
    offline: provider.provider === 'offline',
    prices: config.prices,
  });
  const report: DoctorReport = {
    memories,
    sampled: sample.length,
    mapping: config.mappingFile ?? "(none: memfade's field names)",
    fields: checkFields(sample, models.mapping),
    writes: await checkWrites(models),
    roleCardFields:
      'default' in models.mapping.roleCard ? [] : checkCardFields([...cards.values()], models.mapping),
    badInput: survey.problems,
    roleCards: survey.roleCards,
    languages: survey.languages,
    sizes: survey.sizes,
    nights: byNight.map((calls, night) => ({
      night:
        night === 0 ? 'tonight' : new Date(now.getTime() + night * 86_400_000).toISOString().slice(0, 10),
      ...calls,
    })),
    tonight,
    indexes: await checkIndexes(models),
    redis: await checkRedis(redis),
    vectorStore: await checkVectorStore(config),
    errors: [],
    warnings: [],
  };
  judge(report);
  return report;
}

/** Sorts what was found into what stops memfade (errors) and what only hurts it (warnings). */
function judge(report: DoctorReport): void {
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
  if (report.sampled > 0 && report.roleCards.found === 0)
    errors.push(`no sampled memory's user has a valid role card (e.g. ${report.roleCards.example})`);
  else if (report.roleCards.missing + report.roleCards.invalid > 0)
    warnings.push(
      `${report.roleCards.missing} sampled memories have no role card and ${report.roleCards.invalid} an invalid one (e.g. ${report.roleCards.example}); they will fail as bad input`,
    );
  const cards = report.roleCards.found + report.roleCards.invalid;
  for (const field of report.roleCardFields)
    if (cards > 0 && field.found === 0)
      warnings.push(`${field.key} (${field.field}): no role card found has it; check the mapping`);
  const missing = report.indexes.filter((i) => !i.present);
  if (missing.length)
    warnings.push(
      `${missing.length} indexes missing: the worker creates them at start-up, or run the commands shown`,
    );
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
}

async function checkWrites(models: Models): Promise<WritesReport> {
  const { mapping } = models;
  const prefix = mapping.config.writes.prefix;
  const turns = mapping.joined && { turns: mapping.joined };
  if (!mapping.side)
    return {
      mode: prefix ? 'prefix' : 'beside',
      collection: mapping.collections.memories,
      ...(prefix && { prefix }),
      productDocumentsWritten: true,
      ...turns,
    };
  const through = await enrolmentWatermark(models);
  return {
    mode: 'side',
    collection: mapping.mine.collection,
    productDocumentsWritten: false,
    sideDocuments: await models.mine.countDocuments({}).exec(),
    ...(through && { enrolledThrough: through.toISOString() }),
    ...turns,
  };
}

async function checkRedis(redis: Inspection['redis']): Promise<RedisCheck> {
  if ('error' in redis) return { address: redis.address, reachable: false, error: redis.error };
  const { client, address } = redis;
  const check: RedisCheck = { address, reachable: true };
  try {
    const [, policy] = (await client.config('GET', 'maxmemory-policy')) as string[];
    check.maxmemoryPolicy = policy;
  } catch {
    // Managed Redis often refuses CONFIG: the policy stays unknown rather than wrong.
  }
  const persistence = await client.info('persistence').catch(() => '');
  const field = (name: string) => persistence.match(new RegExp(`^${name}:(.*)$`, 'm'))?.[1]?.trim();
  if (persistence) {
    check.aof = field('aof_enabled') === '1';
    const saves = (await client.config('GET', 'save').catch(() => [] as unknown[])) as string[];
    check.rdb = saves.length > 1 ? saves[1] !== '' : undefined;
  }
  return check;
}

async function checkVectorStore(config: MemfadeConfig): Promise<DoctorReport['vectorStore']> {
  const { kind, dir } = config.vector;
  if (kind !== 'lancedb') return { kind, where: '', status: 'not checked by doctor yet' };
  try {
    await stat(dir);
  } catch {
    return { kind, where: dir, status: 'absent: created at the first vector write' };
  }
  try {
    await access(dir, constants.W_OK);
    return { kind, where: dir, status: 'present and writable' };
  } catch {
    return { kind, where: dir, status: 'not writable by this user' };
  }
}

function printReport(r: DoctorReport): void {
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
  for (const p of r.badInput)
    console.log(`bad input: ${p.count} × ${p.field} (e.g. ${p.example}): ${p.message}`);
  const cards = r.roleCards;
  console.log(`\nrole cards: ${cards.found} found, ${cards.missing} missing, ${cards.invalid} invalid`);
  if (r.roleCardFields.length)
    console.log(`role card fields: ${r.roleCardFields.map((f) => `${f.field} ${f.found}`).join(', ')}`);
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
      `cost: ${cost(t.sync)} sync, ${cost(t.batch)} in batch mode (${t.note})\n`,
  );
  console.log(
    table(
      ['collection', 'index', 'present', 'to create it'],
      r.indexes.map((i) => [i.collection, i.name, i.present ? 'yes' : 'no', i.present ? '' : i.command]),
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
  console.log(r.errors.length ? '\nmemfade cannot work on this database as configured.' : '\nready.');
}
