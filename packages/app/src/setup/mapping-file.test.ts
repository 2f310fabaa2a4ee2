import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_MAPPING, F } from '@memfade/db';
import { ConfigError } from '@memfade/runtime';
import { tempDir } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv } from './config.js';
import { envSchema } from './env-schema.js';
import { loadMapping } from './mapping-file.js';

describe('MEMFADE_MAPPING', () => {
  let folder: Awaited<ReturnType<typeof tempDir>>;
  const file = async (name: string, content: string) => {
    const path = join(folder.dir, name);
    await writeFile(path, content);
    return path;
  };

  beforeAll(async () => {
    folder = await tempDir('memfade-mapping-file-');
  });
  afterAll(async () => folder?.remove());

  it("unset: memfade's own field names, exactly today's", () => {
    const config = configFromEnv(envSchema.parse({}));
    expect(config.mapping).toBe(DEFAULT_MAPPING);
    expect(F).toMatchObject({
      memoryId: 'memoryId',
      stage: 'meta.compressionStage',
      createdAt: 'meta.createdAt',
      compression: 'compression',
      vectorPending: 'vectorSync.pending',
      rev: 'rev',
      inputs: ['content.raw', 'content.processed', 'pendingTopics'],
    });
    expect(DEFAULT_MAPPING.collections.memories).toBe('memories');
  });

  it('reads YAML and JSON, defaults for what the file leaves out, memfade fields under the prefix', async () => {
    const yaml = loadMapping(
      await file(
        'm.yaml',
        'memory:\n  createdAt: { path: created_at, format: epoch-seconds }\nwrites: { prefix: mf }\n',
      ),
    );
    expect(yaml.fields).toMatchObject({
      createdAt: 'created_at',
      userId: 'userId',
      stage: 'mf.stage',
      compressedAt: 'mf.compressedAt',
      history: 'mf.compression.history',
      vectorPending: 'mf.vectorSync.pending',
      rev: 'mf.rev',
    });
    expect(yaml.createdAtFormat).toBe('epoch-seconds');
    const json = loadMapping(await file('m.json', JSON.stringify({ roleCard: { default: { name: 'Mo' } } })));
    expect(json.roleCard).toEqual({ default: { name: 'Mo' } });
    expect(json.fields.stage).toBe('meta.compressionStage');
  });

  it('refuses a bad file at start-up with the key named', async () => {
    const bad = async (name: string, content: string) => {
      const path = await file(name, content);
      return () => configFromEnv(envSchema.parse({ MEMFADE_MAPPING: path }));
    };
    const format = await bad('f.yaml', 'memory: { createdAt: { format: unix } }');
    expect(format).toThrow(ConfigError);
    expect(format).toThrow(
      /mapping\.memory\.createdAt\.format: expected one of date, iso, epoch-seconds, epoch-millis/,
    );
    expect(await bad('k.json', '{"memory": {"createdOn": "x"}}')).toThrow(/mapping\.memory: .*createdOn/);
    expect(await bad('p.json', '{"memory": {"userId": "$user"}}')).toThrow(
      /mapping\.memory\.userId: expected a dotted/,
    );
    expect(await bad('w.json', '{"writes": {"collection": "memfade_side", "prefix": "mf"}}')).toThrow(
      /mapping\.writes\.prefix: not with writes\.collection/,
    );
    expect(await bad('o.json', '{"writes": {"collection": "compression_runs"}}')).toThrow(
      /mapping\.writes\.collection: expected a collection of memfade's own/,
    );
    expect(
      await bad('t.json', '{"memory": {"conversation": {"collection": "turns", "order": "ts"}}}'),
    ).toThrow(/mapping\.memory\.conversation\.memoryId: expected the field of each turn document/);
    expect(await bad('u.json', '{"memory": {"conversation": {"order": "ts"}}}')).toThrow(
      /mapping\.memory\.conversation\.order: only with conversation\.collection/,
    );
    expect(await bad('s.json', '{ not json')).toThrow(/is not valid JSON/);
    expect(() => loadMapping(join(folder.dir, 'absent.yaml'))).toThrow(/MEMFADE_MAPPING: cannot read/);
  });

  it('refuses at start-up a mapping that would have memfade write inside product data (invariant 10)', async () => {
    const refused = async (name: string, content: string) => {
      const path = await file(name, content);
      const start = () => configFromEnv(envSchema.parse({ MEMFADE_MAPPING: path }));
      expect(start).toThrow(ConfigError);
      return start;
    };
    // The three mappings issue 25 reproduced: all were accepted, the first wrote into 3 of 3 memories.
    expect(await refused('prefix.yaml', 'writes: { prefix: content }')).toThrow(
      "mapping.writes.prefix: 'content' overlaps mapping.memory.conversation.path 'content.raw' (memfade would write inside product data)",
    );
    expect(await refused('conversation.yaml', 'memory: { conversation: { path: compression } }')).toThrow(
      "mapping.memory.conversation.path: 'compression' overlaps memfade's field 'compression'",
    );
    expect(await refused('cmd.json', '{"collections": {"memories": "$cmd"}}')).toThrow(
      'mapping.collections.memories: expected a collection name without $ (MongoDB reserves it), not $cmd',
    );
    expect(await refused('nested.yaml', 'writes: { prefix: content.raw.x }')).toThrow(
      "mapping.writes.prefix: 'content.raw.x' overlaps mapping.memory.conversation.path 'content.raw'",
    );
  });

  it('accepts every YAML example of docs/mapping.md, each on its own as a mapping file', async () => {
    const docs = await readFile(new URL('../../../../docs/mapping.md', import.meta.url), 'utf8');
    // A block in a list item is indented as the item is: dedent it by its fence's indent.
    const examples = [...docs.matchAll(/^( *)```yaml\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
      body!.replaceAll(new RegExp(`^${indent}`, 'gm'), ''),
    );
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const [i, example] of examples.entries()) {
      const path = await file(`docs-${i}.yaml`, example);
      expect(() => loadMapping(path), example).not.toThrow();
    }
  });
});
