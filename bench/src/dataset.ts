import type { Models } from '@memfade/db';
import { memoryDocument } from '@memfade/service';

const DAY = 86_400_000;
const TEXT = [
  '今天我去西湖边散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
  '听起来很治愈！那只小狗是什么颜色的？主人是怎么介绍它的呢？',
  'I finally visited the botanical garden today and the view from the hill was amazing.',
  'That sounds lovely! What was the best part of the visit, and who did you go with?',
];

/**
 * Benchmark data: `memories` memories for `users` users, ages spread over 0..10 days so that
 * about half are due (ages 3..10 of 0..10 is 8/11; the spread below makes it exactly half).
 */
export async function seed(
  models: Models,
  options: {
    memories: number;
    users: number;
    now: Date;
    allDueForV1?: boolean;
    /** Makes memory and user ids distinct from another seed's in the same database. */
    idPrefix?: string;
  },
): Promise<{ due: number }> {
  const ids = `bench-${options.idPrefix ?? ''}`;
  let due = 0;
  const batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (batch.length) await models.memories.insertMany(batch.splice(0), { ordered: false });
  };
  await models.roleCards.insertMany(
    Array.from({ length: options.users }, (_, u) => ({
      userId: `${ids}u${u}`,
      personality: 'warm',
      hobbies: 'walks',
    })),
  );
  for (let i = 0; i < options.memories; i++) {
    // Even memories are 3..10 days old (due), odd ones 0..2 (not due): exactly half due.
    // allDueForV1: every memory 4 days old, one V1 compression each (the end-to-end runs).
    const age = options.allDueForV1 ? 4 : i % 2 === 0 ? 3 + ((i / 2) % 8) : (i % 6) / 2;
    if (options.allDueForV1 || i % 2 === 0) due++;
    const createdAt = new Date(options.now.getTime() - age * DAY - (i % 1000));
    const turns = [0, 1].map((k) => ({ role: k ? 'assistant' : 'user', text: TEXT[(i + k) % TEXT.length]! }));
    batch.push(
      memoryDocument({
        memoryId: `${ids}m${i}`,
        userId: `${ids}u${i % options.users}`,
        partnerId: 'p',
        turns,
        createdAt,
      }),
    );
    if (batch.length >= 5_000) await flush();
  }
  await flush();
  return { due };
}
