import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLogger, startMongoServer, startRedisServer } from '@memfade/runtime';
import { defaultConfig, openOperations } from '@memfade/service';
import { seed } from './dataset.js';
import { benchmarkProducer, type ProducerResult } from './producer.js';

export interface BenchOptions {
  memories: number;
  users: number;
  redisUrl?: string;
  mongodbUri?: string;
  resultsDir: string;
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; node: string };
  producer: ProducerResult;
}

/** Runs the benchmark on real Redis and the MongoDB-wire server, writes JSON, returns the report. */
export async function runBench(options: BenchOptions): Promise<{ report: BenchReport; file: string }> {
  const redis = options.redisUrl ? undefined : await startRedisServer();
  const mongo = options.mongodbUri ? undefined : await startMongoServer();
  const tag = Date.now().toString(36);
  const config = defaultConfig({
    redisUrl: options.redisUrl ?? redis!.url,
    mongodbUri: options.mongodbUri ?? mongo!.uri,
    mongodbDb: `bench-${tag}`,
    queuePrefix: `bench-${tag}`,
  });
  const operations = await openOperations(config, { logger: createLogger({ level: 'warn' }) });
  try {
    const { due } = await seed(operations.models, {
      memories: options.memories,
      users: options.users,
      now: operations.now(),
    });
    const producer = await benchmarkProducer(operations, due, options.memories);
    const report: BenchReport = {
      date: new Date().toISOString(),
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      producer,
    };
    await mkdir(options.resultsDir, { recursive: true });
    const file = join(options.resultsDir, `${report.date.replace(/[:.]/g, '-')}.json`);
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
    return { report, file };
  } finally {
    await operations.close();
    await Promise.all([redis?.stop(), mongo?.stop()]);
  }
}

export function markdown(report: BenchReport): string {
  const p = report.producer;
  const f = (n: number) => n.toFixed(1);
  return [
    `### Producer: ${p.memories} memories, ${p.due} due`,
    '',
    '| producer | seconds | due memories/s | jobs enqueued |',
    '| --- | --- | --- | --- |',
    `| memfade (streaming scan + addBulk) | ${f(p.optimized.seconds)} | ${f(p.optimized.perSecond)} | ${p.optimized.enqueued} |`,
    `| seed 003 loop (per user, add one by one) | ${f(p.naive.seconds)} | ${f(p.naive.perSecond)} | ${p.naive.enqueued} |`,
    `| speedup | ${f(p.speedup)}x | | |`,
  ].join('\n');
}
