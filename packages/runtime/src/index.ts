export { type EmbeddedProcess, freePort, spawnUntilReady } from './embedded/child-process.js';
export { type EmbeddedMongo, jongodbBinary, startMongoServer } from './embedded/mongo-server.js';
export { type EmbeddedRedis, startRedisServer } from './embedded/redis-server.js';
export { ConfigError, parseEnv, unsetEmpty } from './env.js';
export { createLogger, type Logger, type LoggerOptions } from './logger.js';
export { redactSecrets, registerSecrets } from './redaction.js';
export { ShutdownManager } from './shutdown.js';
export { MEMFADE_VERSION } from './version.js';
