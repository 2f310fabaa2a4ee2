import { runDoctor } from '@memfade/app';
import { printReport } from '../doctor-print.js';
import { loadConfig } from '../env.js';

/**
 * `memfade doctor` (the application's doctor/diagnose.ts): prints the report as a table, or as JSON
 * with --json. Exit code 1 when the report has errors or an index could not be created.
 */
export async function doctor(options: {
  json: boolean;
  sample: number;
  createIndexes?: boolean;
}): Promise<number> {
  const report = await runDoctor(loadConfig(), {
    sample: options.sample,
    createIndexes: options.createIndexes,
  });
  if (options.json) console.log(JSON.stringify(report, null, 2));
  else printReport(report);
  return report.errors.length || report.created?.some((c) => c.error) ? 1 : 0;
}
