export { type DemoSet, generateDemoData } from './demo-data.js';
export { type ImportedSet, parseMemoryBank } from './import-memorybank.js';
