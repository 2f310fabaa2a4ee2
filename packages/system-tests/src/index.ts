export {
  basicAuth,
  CREDENTIALS,
  type DashboardScene,
  dashboardScene,
  expectNothingLeaked,
  MARKER,
  OK,
} from './dashboard-scene.js';
export { emulatedAnthropic, type Harness, startHarness, startReplica } from './harness.js';
