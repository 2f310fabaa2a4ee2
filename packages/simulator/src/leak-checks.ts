import { lanceTexts, redisTexts } from '@memfade/testing';
import type { Product } from './product.js';
import type { World } from './world.js';

/** Every place memfade could keep a copy of a forgotten text: MongoDB, Redis, every vector version, the provider. */
export async function leaks(world: World, product: Product, markers: string[]): Promise<string[]> {
  if (markers.length === 0) return [];
  const hits: string[] = [];
  const look = (place: string, text: string) => {
    for (const marker of markers) if (text.includes(marker)) hits.push(`${place}: ${marker}`);
  };
  const db = world.services.mongo.db!;
  const names = [
    product.collection,
    'memfade_side',
    'compression_runs',
    'compression_run_errors',
    'compression_batch_requests',
    'compression_batches',
    'compression_holds',
    'compression_state',
  ];
  for (const name of names)
    for (const doc of await db.collection(name).find({}).toArray())
      look(`mongodb ${name} ${String(doc._id)}`, JSON.stringify(doc));
  const { redis } = world.services;
  for (const [key, text] of await redisTexts(redis, world.config.queuePrefix)) look(`redis ${key}`, text);
  // No table yet is no text: a world may end before its first vector is written.
  for (const [version, text] of (await lanceTexts(world.config.vector.dir)) ?? [])
    look(`vector store version ${version}`, text);
  look('provider batches and files', world.emulator.batches.storedText());
  return hits;
}
