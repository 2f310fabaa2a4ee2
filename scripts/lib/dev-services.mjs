// scripts/dev-services.sh: starts the launchers the demo and the tests use (packages/runtime),
// prints where they listen, and stops both on Ctrl-C or SIGTERM.
import { startMongoServer, startRedisServer } from '../../packages/runtime/dist/index.js';

const redis = await startRedisServer();
let mongo;
try {
  mongo = await startMongoServer();
} catch (error) {
  await redis.stop();
  throw error;
}
console.log(`export MONGODB_URI=${mongo.uri}`);
console.log(`export REDIS_URL=${redis.url}`);
console.error('memfade dev services: running in memory (nothing on disk); Ctrl-C stops them');

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  await Promise.all([redis.stop(), mongo.stop()]);
  process.exit(code);
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
// Either server dying on its own ends the trial: say which, stop the other.
for (const [name, server] of [
  ['redis-server', redis],
  ['jongodb', mongo],
])
  server.child.on('exit', (code) => {
    if (stopping) return;
    console.error(`memfade dev services: ${name} exited (${code}); stopping`);
    void stop(1);
  });
