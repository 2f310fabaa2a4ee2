import type { EndToEndResult } from './end-to-end.js';

/** One concurrency of the end-to-end sweep (run.ts), as the report and its chart (chart.ts) read it. */
export interface SweepResult extends EndToEndResult {
  /** min(C / L, the L = 0 ceiling) in memories per second. */
  bound: number;
  /** The whole run's rate against the bound. */
  efficiency: number;
  /** The steady rate against the bound: what a night of many waves runs at. */
  steadyEfficiency: number;
}
