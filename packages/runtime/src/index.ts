export { freePort, spawnUntilReady, type EmbeddedProcess } from './embedded/child-process.js';
export { startMongoServer, jongodbBinary, type EmbeddedMongo } from './embedded/mongo-server.js';
export { startRedisServer, type EmbeddedRedis } from './embedded/redis-server.js';
export { parseEnv, unsetEmpty } from './env.js';
export { createLogger, redactUrl, type Logger, type LoggerOptions } from './logger.js';
export { ShutdownManager } from './shutdown.js';
