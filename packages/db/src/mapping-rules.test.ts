import { describe, expect, it } from 'vitest';
import { parseMapping } from './mapping.js';

/**
 * docs/design.md invariant 10: no write under a path the mapping reads. A mapping whose writes would land
 * inside the product's fields (or whose names MongoDB would misread) is refused when it is loaded,
 * before any app touches the database. Pure: no server.
 */
const refusal = (content: unknown): string => {
  try {
    parseMapping(content);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted: ${JSON.stringify(content)}`);
};

describe('memfade never writes inside what the product owns (invariant 10)', () => {
  it('refuses writes.prefix: content (the night that wrote into 3 of 3 product content objects)', () => {
    const message = refusal({ writes: { prefix: 'content' } });
    expect(message).toContain(
      "mapping.writes.prefix: 'content' overlaps mapping.memory.conversation.path 'content.raw' (memfade would write inside product data)",
    );
    expect(message).toContain("overlaps mapping.memory.processed 'content.processed'");
  });

  it('refuses a read path on one of memfade’s own fields when there is no prefix', () => {
    expect(refusal({ memory: { conversation: { path: 'compression' } } })).toBe(
      "mapping.memory.conversation.path: 'compression' overlaps memfade's field 'compression' " +
        '(memfade would write inside product data; writes.prefix is empty: set it or writes.collection)',
    );
    // The default stage is meta.compressionStage: a creation date mapped to `meta` holds it.
    expect(refusal({ memory: { createdAt: { path: 'meta' } } })).toContain(
      "mapping.memory.createdAt.path: 'meta' overlaps memfade's field 'meta.compressionStage'",
    );
    expect(refusal({ memory: { pendingTopics: 'vectorSync.topics' } })).toContain(
      "mapping.memory.pendingTopics: 'vectorSync.topics' overlaps memfade's field 'vectorSync'",
    );
  });

  it('refuses a prefix inside a read path, and a read path inside the prefix', () => {
    expect(refusal({ writes: { prefix: 'content.raw.x' } })).toBe(
      "mapping.writes.prefix: 'content.raw.x' overlaps mapping.memory.conversation.path 'content.raw' (memfade would write inside product data)",
    );
    expect(refusal({ memory: { language: 'mf.lang' }, writes: { prefix: 'mf' } })).toBe(
      "mapping.writes.prefix: 'mf' overlaps mapping.memory.language 'mf.lang' (memfade would write inside product data)",
    );
    expect(refusal({ memory: { id: 'mf' }, writes: { prefix: 'mf' } })).toContain(
      "mapping.writes.prefix: 'mf' overlaps mapping.memory.id 'mf'",
    );
    expect(refusal({ writes: { prefix: '_id' } })).toContain(
      "mapping.writes.prefix: '_id' overlaps the product's _id",
    );
  });

  it('refuses a mapped stage on a product field or on another of memfade’s fields', () => {
    expect(refusal({ memory: { stage: 'digest.stage', processed: 'digest' } })).toBe(
      "mapping.memory.stage: 'digest.stage' overlaps mapping.memory.processed 'digest' (memfade would write inside product data)",
    );
    expect(refusal({ memory: { stage: 'mf.compression' }, writes: { prefix: 'mf' } })).toBe(
      "mapping.memory.stage: 'mf.compression' overlaps memfade's field 'mf.compression' (two of memfade's fields in one place)",
    );
    expect(refusal({ memory: { stage: 'mf' }, writes: { prefix: 'mf' } })).toBe(
      "mapping.memory.stage: 'mf' overlaps mapping.writes.prefix 'mf' (two of memfade's fields in one place)",
    );
  });

  it('compares whole path segments, and checks nothing in product documents in side-collection mode', () => {
    // `content_mf` is not inside `content`, nor `contentx` beside `content.raw`.
    expect(() => parseMapping({ writes: { prefix: 'content_mf' } })).not.toThrow();
    expect(() => parseMapping({ memory: { conversation: { path: 'compressionText' } } })).not.toThrow();
    // memfade writes no product document there: a product field named `compression` is only read.
    expect(() =>
      parseMapping({
        memory: { conversation: { path: 'compression' } },
        writes: { collection: 'memfade_side' },
      }),
    ).not.toThrow();
  });
});

describe('collection names and paths MongoDB reads as meant', () => {
  it('refuses a collection name with $, a null byte, system., empty or too long', () => {
    expect(refusal({ collections: { memories: '$cmd' } })).toBe(
      'mapping.collections.memories: expected a collection name without $ (MongoDB reserves it), not $cmd',
    );
    expect(refusal({ collections: { roleCards: 'cards\0x' } })).toContain(
      'mapping.collections.roleCards: expected a collection name without a null byte',
    );
    expect(refusal({ collections: { memories: 'system.profile' } })).toContain(
      'mapping.collections.memories: expected a collection name not starting with system. (MongoDB reserves it), not system.profile',
    );
    expect(refusal({ collections: { memories: '' } })).toBe(
      'mapping.collections.memories: expected a collection name',
    );
    expect(refusal({ writes: { collection: '记'.repeat(41) } })).toContain(
      'mapping.writes.collection: expected a collection name of at most 120 bytes (123)',
    );
    expect(() => parseMapping({ collections: { memories: '记'.repeat(40) } })).not.toThrow();
  });

  it("keeps memfade's own collections and the product's apart", () => {
    expect(refusal({ collections: { memories: 'compression_runs' } })).toBe(
      "mapping.collections.memories: 'compression_runs' is a collection of memfade's own (memfade would write inside product data)",
    );
    expect(
      refusal({ memory: { conversation: { collection: 'compression_state', memoryId: 'm', order: 'ts' } } }),
    ).toContain(
      "mapping.memory.conversation.collection: 'compression_state' is a collection of memfade's own",
    );
    expect(refusal({ collections: { memories: 'chats', roleCards: 'chats' } })).toBe(
      "mapping.collections.roleCards: 'chats' is also mapping.collections.memories (each product collection holds one kind of document)",
    );
    expect(
      refusal({
        collections: { memories: 'chats' },
        memory: { conversation: { collection: 'chats', memoryId: 'm', order: 'ts' } },
      }),
    ).toContain("mapping.memory.conversation.collection: 'chats' is also mapping.collections.memories");
    expect(refusal({ writes: { collection: 'chats' }, collections: { memories: 'chats' } })).toContain(
      "mapping.writes.collection: expected a collection of memfade's own, not chats",
    );
  });

  it('refuses a path with an empty part, a $ or a null byte', () => {
    expect(refusal({ memory: { userId: 'a..b' } })).toContain(
      'mapping.memory.userId: expected a dotted field path',
    );
    expect(refusal({ memory: { userId: '$user' } })).toContain(
      'mapping.memory.userId: expected a dotted field path',
    );
    expect(refusal({ writes: { prefix: 'mf\0' } })).toBe(
      'mapping.writes.prefix: expected a dotted field path without a null byte',
    );
    expect(refusal({ memory: { conversation: { turns: { text: 'te\0xt' } } } })).toBe(
      'mapping.memory.conversation.turns.text: expected a key without a null byte',
    );
  });
});

describe('valid mappings are still accepted', () => {
  it('the foreign schema of the system test and docs/mapping.md, and the defaults', () => {
    // packages/system-tests/src/foreign-schema.test.ts, as parsed from its YAML.
    const foreign = parseMapping({
      collections: { memories: 'chat_memories', roleCards: '角色卡' },
      memory: {
        id: '_id',
        userId: 'uid',
        partnerId: 'companion',
        createdAt: { path: 'created_at', format: 'iso' },
        language: 'lang',
        conversation: {
          path: 'messages',
          turns: { role: 'sender', text: 'content', at: 'ts', roles: { human: 'user', ai: 'assistant' } },
        },
        processed: 'digest',
        pendingTopics: 'topics_todo',
      },
      roleCard: {
        key: '用户',
        name: '名字',
        personality: '性格',
        values: '价值观',
        hobbies: '爱好',
        speakingStyle: '说话风格',
        language: '语言',
      },
      writes: { prefix: 'memfade' },
    });
    expect(foreign.fields).toMatchObject({ stage: 'memfade.stage', conversation: 'messages' });
    // packages/system-tests/src/side-collection.test.ts: joined turns, side collection.
    const side = parseMapping({
      collections: { memories: 'companion_memories' },
      memory: {
        id: 'memory_uuid',
        userId: 'account',
        createdAt: { path: 'created_ms', format: 'epoch-millis' },
        conversation: { collection: 'companion_turns', memoryId: 'memory_uuid', order: 'seq' },
      },
      roleCard: { default: { name: 'Kai' } },
      writes: { collection: 'memfade_side' },
    });
    expect(side.side).toBe(true);
    // A mapping file that names nothing, a stage mapped beside the prefix, and the default mapping's
    // own shape (stage and creation date both under `meta`, apart).
    expect(() => parseMapping({})).not.toThrow();
    expect(() => parseMapping({ memory: { stage: 'mf_stage' }, writes: { prefix: 'mf' } })).not.toThrow();
    expect(() => parseMapping({ memory: { missingStage: 'invalid' } })).not.toThrow();
  });
});
