import { access, constants, stat } from 'node:fs/promises';
import {
  checkIndexes,
  collectionSize,
  createMissingIndexes,
  creationDates,
  describeCardKey,
  duplicateCardKeys,
  enrolmentWatermark,
  legacyUniqueIndexes,
  lookupKey,
  type Models,
  productFieldName,
  roleCardsOf,
  sampleMemories,
  transitionsByNight,
} from '@memfade/db';
import type { MemfadeConfig } from '../setup/config.js';
import { type Inspection, openForInspection } from '../setup/inspection.js';
import {
  cardProblems,
  DATE_FLOOR,
  dateCeiling,
  datesReport,
  judgeDates,
  judgeProductData,
  missingIndexCost,
  productDataFields,
  unmappedRoles,
} from './checks.js';
import { judge, willFail } from './judge.js';
import type { DoctorReport, RedisCheck, RoleCardReport, WritesReport } from './report.js';
import { checkCardFields, checkFields, estimateNight, type SampleSurvey, surveySample } from './survey.js';

/** The nights after tonight whose newly due memories doctor counts. */
const NIGHTS_AHEAD = 7;

/**
 * `memfade doctor`: what memfade would make of the configured database, tonight and the next
 * nights, without writing anything (no index, no collection, no job). With `createIndexes` it
 * first creates the indexes memfade relies on that are missing, the product's collections' too:
 * the one way memfade puts an index on a collection of the product's (docs/design.md invariant 10).
 * The report's `errors` (and an index it could not create) are what makes the command exit 1.
 */
export async function runDoctor(
  config: MemfadeConfig,
  options: { sample: number; createIndexes?: boolean; now?: Date },
): Promise<DoctorReport> {
  const inspection = await openForInspection(config);
  try {
    const created = options.createIndexes ? await createIndexes(inspection.models) : undefined;
    const report = await diagnose(inspection, config, options.sample, options.now ?? new Date());
    if (created) report.created = created;
    return report;
  } finally {
    await inspection.close();
  }
}

async function createIndexes(models: Models): Promise<NonNullable<DoctorReport['created']>> {
  const results = await createMissingIndexes(models, await checkIndexes(models));
  return results.map(({ check, error }) => ({
    collection: check.collection,
    name: check.name,
    ...(error && { error }),
  }));
}

async function diagnose(
  { models, redis }: Inspection,
  config: MemfadeConfig,
  sampleSize: number,
  now: Date,
): Promise<DoctorReport> {
  const { policy } = config;
  const { mapping } = models;
  const memories = await models.memories.countDocuments({}).exec();
  const sample = await sampleMemories(models, sampleSize);
  const owners = sample.flatMap((d) =>
    typeof d.userId === 'string'
      ? [{ userId: d.userId, partnerId: typeof d.partnerId === 'string' ? d.partnerId : 'default' }]
      : [],
  );
  const cards = await roleCardsOf(models, owners);
  const survey = surveySample(
    sample,
    (memory) => cards.get(lookupKey(mapping, memory)),
    policy,
    now,
    (field) => productFieldName(mapping, field),
  );
  const byNight = await transitionsByNight(models, policy, now, NIGHTS_AHEAD);
  const provider = config.provider;
  const tonight = estimateNight(survey, byNight[0]!, policy, {
    name: provider.provider === 'offline' ? 'offline' : (provider.model ?? '(MEMFADE_MODEL unset)'),
    offline: provider.provider === 'offline',
    prices: config.prices,
    provider: provider.provider,
  });
  const dates = datesReport(await creationDates(models, DATE_FLOOR, dateCeiling(now)));
  const productData = productDataFields(sample);
  const report: DoctorReport = {
    memories,
    sampled: sample.length,
    mapping: config.mappingFile ?? "(none: memfade's field names)",
    fields: checkFields(sample, mapping),
    dates,
    writes: await checkWrites(models),
    roleCardFields:
      'default' in mapping.roleCard
        ? []
        : checkCardFields(
            [...cards.values()].map((c) => c.card),
            mapping,
          ),
    badInput: survey.problems,
    productData,
    roleCards: await roleCardReport(models, survey),
    unmappedRoles: unmappedRoles(sample),
    languages: survey.languages,
    sizes: survey.sizes,
    nights: byNight.map((calls, night) => ({
      night:
        night === 0 ? 'tonight' : new Date(now.getTime() + night * 86_400_000).toISOString().slice(0, 10),
      ...calls,
    })),
    tonight,
    budget: config.nightBudget,
    indexes: await indexesWithCosts(models, tonight.due.v1 + tonight.due.v2, config),
    uniqueOnYours: await legacyUniqueIndexes(models),
    redis: await checkRedis(redis),
    vectorStore: await checkVectorStore(config),
    willFail: 0,
    errors: [...judgeProductData(productData, sample.length), ...judgeDates(dates, now)],
    warnings: [],
  };
  judge(report, mapping);
  report.willFail = willFail(report);
  return report;
}

async function roleCardReport(models: Models, survey: SampleSurvey): Promise<RoleCardReport> {
  const { mapping } = models;
  const hasCollection = !('default' in mapping.roleCard);
  return {
    collection: hasCollection ? mapping.collections.roleCards : '(none: mapping.roleCard.default)',
    keyedBy: describeCardKey(mapping),
    documents: hasCollection ? await models.roleCards.collection.estimatedDocumentCount() : 0,
    used: survey.cardsUsed,
    invalid: new Set(survey.refusals.map((r) => r.cardId)).size,
    memories: survey.memoriesByCard,
    problems: cardProblems(survey.refusals, mapping),
    duplicates: await duplicateCardKeys(models),
  };
}

/** The index checks, each missing one of the product's with what it costs to go without. */
async function indexesWithCosts(
  models: Models,
  jobsTonight: number,
  config: MemfadeConfig,
): Promise<DoctorReport['indexes']> {
  const checks = await checkIndexes(models);
  const sizes = new Map<string, Awaited<ReturnType<typeof collectionSize>>>();
  const byName = new Map(
    [models.memories, models.roleCards, ...(models.turns ? [models.turns] : [])].map((m) => [
      m.collection.collectionName,
      m,
    ]),
  );
  const result: DoctorReport['indexes'] = [];
  for (const check of checks) {
    const model = byName.get(check.collection);
    if (check.present || check.owner !== 'product' || !model) {
      result.push(check);
      continue;
    }
    if (!sizes.has(check.collection)) sizes.set(check.collection, await collectionSize(model));
    const size = sizes.get(check.collection)!;
    const ctx = { ...size, jobsTonight, sweepIntervalMs: config.vectorSync.intervalMs };
    result.push({ ...check, withoutIt: missingIndexCost(check, ctx) });
  }
  return result;
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
