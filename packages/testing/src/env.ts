/** Test services: point these at existing servers to skip starting private ones. */
export const testEnv = {
  redisUrl: process.env.REDIS_URL || undefined,
  mongodbUri: process.env.MONGODB_URI || undefined,
};
