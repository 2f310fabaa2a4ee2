export { emulatedAnthropic, type Harness, startHarness, startReplica } from './harness.js';
