import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startMongoServer } from './mongo-server.js';
import { startRedisServer } from './redis-server.js';

function send(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(payload));
    socket.once('data', (data) => {
      socket.end();
      resolve(data.toString());
    });
    socket.once('error', reject);
  });
}

describe('embedded servers', () => {
  it('starts a private redis-server that answers PING and is gone after stop', async () => {
    const redis = await startRedisServer();
    expect(await send(redis.port, 'PING\r\n')).toBe('+PONG\r\n');
    await redis.stop();
    await expect(send(redis.port, 'PING\r\n')).rejects.toThrow();
  });

  it('starts the MongoDB-wire server on a free port', async () => {
    const mongo = await startMongoServer();
    expect(mongo.uri).toBe(`mongodb://127.0.0.1:${mongo.port}`);
    await mongo.stop();
    expect(mongo.child.exitCode !== null || mongo.child.signalCode !== null).toBe(true);
  });
});
