import { OfflineCompressor } from '@memfade/ai';
import { compressMemory, type Memory, stagePolicy } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStore } from './memory-store.js';

/**
 * A user renames their companion (or a product its persona) between V1 and V2: V1 says "小暖说…",
 * the card now says 阿光. On the code before, every such V2 from V1 was refused by the faithfulness
 * gate ("小暖" is a name nobody's card gives), every night, the memory held at V1 for good (found
 * renaming the shared sets' companions between the stages: 29 of 40 V2s refused). The offline
 * compressor's V2 is then written from the conversation itself, in the card's names (pipeline.ts).
 * And a card whose names carry spaces (" 小暖 "): read trimmed (core parse.ts), as the stages write them.
 */

const DAY = 86_400_000;
const TURNS = [
  { role: 'user', text: '今天我去西湖边散步，看到一只特别可爱的小狗，是一只白色的小柯基，主人说它叫豆豆。' },
  { role: 'assistant', text: '好可爱！我小时候也养过一只柯基，叫旺财，陪了我八年。你是不是也想养一只？' },
  {
    role: 'user',
    text: '有点想，不过我现在住的地方太小了，等明年三月搬家以后再说吧。我已经看好了姐姐家附近的新小区。',
  },
  { role: 'assistant', text: '那太好了，楼下要是有公园，遛狗就方便多了。到时候我帮你列个养狗清单。' },
  { role: 'user', text: '好呀。我还担心上班的时候它一个人在家会孤单，邻居会不会投诉。' },
];

/** A memory of these turns under this card on the in-memory store, and a night taking it to a stage at an age in days. */
function product(card: { name?: string; userName?: string }, turns = TURNS) {
  const store = new InMemoryMemoryStore();
  const createdAt = new Date(Date.UTC(2026, 10, 1));
  const setCard = (c: typeof card) => store.putRoleCard({ userId: 'u', ...c, language: 'zh' });
  setCard(card);
  store.putMemory({
    memoryId: 'm',
    userId: 'u',
    partnerId: 'p',
    content: { raw: turns },
    meta: { createdAt, compressionStage: 'raw', language: 'zh' },
    rev: 0,
  });
  const deps = { store, compressor: new OfflineCompressor(), policy: stagePolicy() };
  const night = async (stage: 'v1' | 'v2', days: number) => {
    await compressMemory('m', stage, 'm', { ...deps, now: () => new Date(createdAt.getTime() + days * DAY) });
    return ((await store.loadMemory('m')) as Memory | null)?.compression;
  };
  return { setCard, night };
}

describe('the role card as the pipeline reads it', () => {
  it('a companion renamed between V1 and V2 gets its V2, in the new name, from the offline compressor', async () => {
    const { setCard, night } = product({ name: '小暖', userName: '林晓' });
    expect((await night('v1', 4))?.v1?.compressedContent).toContain('小暖');
    setCard({ name: '阿光', userName: '林晓' });
    const v2 = (await night('v2', 8))?.v2?.coreMemory;
    expect(v2).toBeDefined();
    expect(v2).not.toContain('小暖');
    expect(v2).toContain('林晓');
  });

  it('gets both stages when the card names carry spaces (" 小暖 ", "林晓 "): none refused by the gate', async () => {
    const stages = await product({ name: ' 小暖 ', userName: '林晓 ' }).night('v2', 8);
    expect(stages?.v1?.compressedContent).toContain('林晓');
    expect(stages?.v2?.coreMemory).toBeDefined();
  });

  it('gets both stages when the turns are labelled with spaces around them (" user ", "assistant ")', async () => {
    const padded = TURNS.map((t) => ({ ...t, role: t.role === 'user' ? ' user ' : 'assistant ' }));
    const stages = await product({ name: '小暖', userName: '林晓' }, padded).night('v2', 8);
    expect(stages?.v2?.coreMemory).toContain('林晓');
  });
});
