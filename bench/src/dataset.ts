import type { Models } from '@memfade/db';
import { memoryDocument } from '@memfade/db';

const DAY = 86_400_000;
/**
 * Two conversations of four turns, one Chinese and one English, each a few hundred characters: long
 * enough to be sent to the model (over the 100-character minimum) and with sentences short enough
 * that one reply lands in the V1 target range, so every due memory costs exactly one model call
 * and the end-to-end runs can be held against the C / L bound.
 */
const CONVERSATIONS = [
  [
    '今天下班后我去西湖边散步，看到一只特别可爱的小狗。它一直跟着我走了好久，心情一下子就好起来了。',
    '听起来很治愈！那只小狗是什么颜色的？你后来有没有问问主人它叫什么名字？',
    '是一只白色的小柯基，主人说它叫豆豆。我们还约好周末一起带狗去公园玩。',
    '太好了，豆豆一定很开心。周末记得带点零食，也别忘了拍几张照片给我看看。',
  ],
  [
    'I finally visited the botanical garden today. The view from the hill was amazing. The roses were in full bloom.',
    'That sounds lovely! What was the best part of the visit? Did you go with anyone?',
    'I went with my sister. We had a picnic under the old oak tree. We talked for hours about our childhood.',
    'What a wonderful day. It is great that you two found time together. Maybe you can make it a monthly tradition.',
  ],
];

/**
 * The turns of benchmark conversation i: Chinese and English alternate in pairs. With `chars`, the
 * conversation goes on (its turns again, in turn) until its text holds at least that many
 * characters: memories of a length the database's bytes per memory can be read at.
 */
export function conversationTurns(i: number, chars = 0): { role: string; text: string }[] {
  const conversation = CONVERSATIONS[Math.floor(i / 2) % CONVERSATIONS.length]!;
  const turns: { role: string; text: string }[] = [];
  let length = 0;
  for (let k = 0; k < conversation.length || length < chars; k++) {
    const text = conversation[k % conversation.length]!;
    turns.push({ role: k % 2 ? 'assistant' : 'user', text });
    length += [...text].length;
  }
  return turns;
}

/**
 * How old the seeded memories are. mixed: spread over 0..10 days so that exactly half are due (the
 * producer's data); dueForV1: every one 4 days old, one V1 compression each (the end-to-end runs);
 * dueForV2: every one 8 days old and still raw, due for V1 and V2 the same night; notDue: every
 * one a day old, due for nothing (filling a collection up to a size).
 */
export type Ages = 'mixed' | 'dueForV1' | 'dueForV2' | 'notDue';

/** Benchmark data: `memories` memories for `users` users, of the given ages (mixed by default). */
export async function seed(
  models: Models,
  options: {
    memories: number;
    users: number;
    now: Date;
    ages?: Ages;
    /** Makes memory and user ids distinct from another seed's in the same database. */
    idPrefix?: string;
    /** Each memory's conversation at least this many characters long (conversationTurns). */
    memoryChars?: number;
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
      // A name of its own: each user's card is a prompt prefix of its own, cached apart, as in a product.
      name: `${ids}u${u}`,
      personality: 'warm',
      hobbies: 'walks',
    })),
  );
  for (let i = 0; i < options.memories; i++) {
    // mixed: even memories are 3..10 days old (due), odd ones 0..2 (not due).
    const ages = options.ages ?? 'mixed';
    const mixedDue = i % 2 === 0;
    const age = {
      dueForV1: 4,
      dueForV2: 8,
      notDue: 1,
      mixed: mixedDue ? 3 + ((i / 2) % 8) : (i % 6) / 2,
    }[ages];
    if (ages === 'dueForV1' || ages === 'dueForV2' || (ages === 'mixed' && mixedDue)) due++;
    const createdAt = new Date(options.now.getTime() - age * DAY - (i % 1000));
    // Languages alternate in pairs, so both are among the due and the not-due.
    const turns = conversationTurns(i, options.memoryChars);
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
