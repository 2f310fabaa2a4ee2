import { benchEnv } from './env.js';
import { markdown, runBench } from './run.js';

const { report, file } = await runBench(benchEnv);
console.log(markdown(report));
console.log(`\nresults: ${file}`);
