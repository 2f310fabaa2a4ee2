export { type Harness, startHarness, startReplica } from './harness.js';
