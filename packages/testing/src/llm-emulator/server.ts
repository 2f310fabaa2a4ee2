import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toSimplified } from '@memfade/core';
import { type BatchControls, createBatchEmulator } from './batches.js';
import { type Billed, billing } from './billing.js';
import { CACHE_TTL_MS, cacheableTokens, cacheRule, DEFAULT_BATCH_CACHE_HIT_RATE } from './cache-rules.js';
import { definitionPrefix } from './definition-tokens.js';
import type { Fault, FaultRule } from './faults.js';
import { GROUP_STAGES, groupFields, readGroupRequest } from './group-replies.js';
import { QA_TOOLS, qaFields, qaTool } from './qa-replies.js';
import { readStageRequest, type StageRequest, stageFields, tokens, WRONG_LANGUAGE } from './replies.js';
import { errorReply, type RecordedRequest, type Reply, send } from './wire.js';

export interface LlmEmulatorOptions {
  /** How long a new batch processes before it ends on its own (default 0); see BatchControls. */
  batchProcessingMs?: number;
  /**
   * Share of batch requests with a real model name (cache-rules.ts) that find the cache entry they
   * could read: hits in batches are best-effort (default 0.3; spread evenly, deterministic).
   */
  batchCacheHitRate?: number;
  /** The clock cache entries expire by (5 minutes unused); tests can move it. Default Date.now. */
  now?: () => number;
}

export interface LlmEmulator {
  /** Base URL for the Anthropic SDK; the OpenAI SDK takes `${url}/v1`. */
  url: string;
  /** Every model request, sync or inside a batch, in the order received. */
  requests: RecordedRequest[];
  /** Faults for the next requests, one each, in order (batch requests included). */
  inject(...faults: Fault[]): void;
  /** A rule consulted for every request that has no queued fault (e.g. a steady fault rate). */
  setRule(rule: FaultRule | undefined): void;
  /** Both batch APIs: what they hold and how they process. */
  batches: BatchControls;
  /**
   * What the provider would bill so far: successful sync calls and processed batch lines, with
   * their tokens (input, output, cache reads and writes, all counted), whether or not anyone ever
   * read the reply; a batch whose processing time has passed is processed first, looked at or not.
   * The fault suite compares it with what the runs counted.
   */
  billed(): Billed;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const STAGES: Record<string, StageRequest['stage']> = {
  record_v1_memory: 'v1',
  record_v2_memory: 'v2',
  record_v1_and_v2_memory: 'pair',
};

/**
 * A local HTTP server speaking the subset of the Anthropic and OpenAI APIs memfade uses
 * (messages, chat completions, embeddings, Message Batches, Batch and Files), so tests run the
 * real SDKs over real HTTP. A request in a batch is answered by the same code as a sync request,
 * so a batch reply equals the sync reply to the same body, except that its cache reads are
 * best-effort for real model names. Caching and max_tokens follow the providers' rules
 * (cache-rules.ts): what money and failure depend on is as strict as the real APIs.
 */
export async function startLlmEmulator(options: LlmEmulatorOptions = {}): Promise<LlmEmulator> {
  const requests: RecordedRequest[] = [];
  const queued: Fault[] = [];
  let rule: FaultRule | undefined;
  /** Cache entries by model and prefix, with when each was last used (written or read). */
  const cache = new Map<string, number>();
  const now = options.now ?? Date.now;
  const batchHitRate = options.batchCacheHitRate ?? DEFAULT_BATCH_CACHE_HIT_RATE;
  if (!(batchHitRate >= 0 && batchHitRate <= 1))
    throw new Error(`batchCacheHitRate must be between 0 and 1, got ${batchHitRate}`);
  let batchLookups = 0;
  let url = '';

  /** Records a model request and decides its fault. */
  const record = (request: Omit<RecordedRequest, 'fault'>): Fault | undefined => {
    const fault = queued.shift() ?? rule?.({ api: request.api, index: requests.length, body: request.body });
    requests.push({ ...request, fault });
    return fault;
  };

  /** The reply to one model request, given its fault (slow faults are the caller's to wait out). */
  const reply = (api: 'messages' | 'chat', body: Json, fault: Fault | undefined, inBatch = false): Reply => {
    if (fault?.kind === 'status')
      return errorReply(api, fault.status, fault.retryAfterSeconds, fault.message);
    const tool = api === 'messages' ? String((body.tool_choice as Json | undefined)?.name) : schemaName(body);
    const qa = qaTool(tool);
    const stage = STAGES[tool];
    const group = GROUP_STAGES[tool];
    const stageRequest = stage && readStageRequest(stage, userTexts(body));
    const groupRequests = group && readGroupRequest(group, userTexts(body));
    if (!qa && !stageRequest && !groupRequests) return errorReply(api, 400);
    const fields = qa
      ? qaFields(qa, systemText(api, body), userTexts(body).join('\n'))
      : groupRequests
        ? groupFields(groupRequests, fault, (fields, request) => withFault(fields, request, fault, 0))
        : withFault(stageFields(stageRequest!), stageRequest!, fault, asked(body));
    // The providers' rules (cache-rules.ts): below the model's minimum nothing is cached; OpenAI
    // credits whole 128-token steps; an entry unused for 5 minutes is gone; in a batch a hit is
    // best-effort. Anthropic only caches a prefix marked with cache_control. For a real model name
    // the prefix starts with the output's definition, billed and cached as the providers do
    // (definition-tokens.ts); the tests' names keep the simpler figures their rows assert.
    const rule = cacheRule(body.model);
    const definition = rule.strict ? definitionPrefix(api, body) : { text: '', tokens: 0 };
    const system =
      api === 'messages' ? JSON.stringify(body.system) : JSON.stringify((body.messages as Json[])[0]);
    const prefix = `${definition.text}${system}`;
    const prefixTokens = definition.tokens + tokens(system);
    const marked = api === 'chat' || JSON.stringify(body.system).includes('cache_control');
    const cacheTokens = marked ? cacheableTokens(rule, prefixTokens) : 0;
    const key = `${String(body.model)}\n${prefix}`;
    const lastUsed = cache.get(key);
    let cached = cacheTokens > 0 && lastUsed !== undefined && now() - lastUsed <= CACHE_TTL_MS;
    if (cached && inBatch && rule.strict) {
      batchLookups++;
      cached = Math.floor(batchLookups * batchHitRate) > Math.floor((batchLookups - 1) * batchHitRate);
    }
    if (cacheTokens > 0) cache.set(key, now());
    // The turns after the prefix: OpenAI's prefix is its first message, which must not count twice.
    const turns = api === 'messages' ? (body.messages as Json[]) : (body.messages as Json[]).slice(1);
    const input = tokens(JSON.stringify(turns));
    // A reply longer than max_tokens is cut off there, as the providers do, unless a fault says
    // otherwise: it bills all of max_tokens; a refusal a few tokens of its sentence.
    const natural = tokens(JSON.stringify(fields));
    const limit = asked(body);
    const truncated = fault?.kind === 'truncate' || (!replyFault(fault) && limit > 0 && natural > limit);
    const maxTokens = limit || natural;
    const output = truncated ? maxTokens : fault?.kind === 'refuse' ? 12 : natural;
    if (api === 'messages') {
      const content =
        fault?.kind === 'malformed' || fault?.kind === 'refuse'
          ? [{ type: 'text', text: 'I cannot help with that.' }]
          : [
              {
                type: 'tool_use',
                id: 'toolu_emulated',
                name: (body.tool_choice as Json).name,
                input: truncated ? partial(fields) : fields,
              },
            ];
      const stopReason = truncated ? 'max_tokens' : fault?.kind === 'refuse' ? 'refusal' : 'tool_use';
      return {
        status: 200,
        body: {
          id: `msg_${requests.length}`,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage: {
            input_tokens: input + prefixTokens - cacheTokens,
            output_tokens: output,
            cache_creation_input_tokens: cached ? 0 : cacheTokens,
            cache_read_input_tokens: cached ? cacheTokens : 0,
          },
        },
      };
    }
    const json = JSON.stringify(fields);
    const text =
      fault?.kind === 'malformed'
        ? '{"compressedContent": "unterminated'
        : truncated
          ? json.slice(0, Math.floor(json.length / 2))
          : json;
    const refusal = fault?.kind === 'refuse' ? "I'm sorry, I can't help with that request." : null;
    return {
      status: 200,
      body: {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: refusal ? null : text, refusal },
            finish_reason: truncated ? 'length' : 'stop',
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: input + prefixTokens,
          completion_tokens: output,
          total_tokens: input + prefixTokens + output,
          prompt_tokens_details: { cached_tokens: cached ? cacheTokens : 0 },
        },
      },
    };
  };

  const { billed, bill, unreport } = billing();
  // Billed as any reply, but said nothing of it (some OpenAI-compatible servers), sync or batch.
  const unmetered = <T extends { status: number; body: Json }>(answer: T, fault: Fault | undefined): T =>
    fault?.kind === 'no-usage' ? unreport(answer) : answer;

  const batches = createBatchEmulator({
    url: () => url,
    record,
    reply: (api, body, fault) =>
      unmetered(
        bill(
          'batch',
          reply(api, body, fault, true),
          requests.findLast((r) => r.body === body),
        ),
        fault,
      ),
    processingMs: options.batchProcessingMs ?? 0,
  });

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://emulator').pathname;
    if (await batches.handle(req, res, raw)) return;
    const body = JSON.parse(raw.toString('utf8') || '{}') as Json;
    const api = path.endsWith('/messages')
      ? 'messages'
      : path.endsWith('/chat/completions')
        ? 'chat'
        : 'embeddings';
    const fault = record({ api, headers: req.headers, body });
    const recorded = requests[requests.length - 1];
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (api === 'embeddings') {
      if (fault?.kind === 'status') {
        const error = errorReply(api, fault.status, fault.retryAfterSeconds, fault.message);
        return send(res, error.status, error.body, error.headers);
      }
      return send(res, 200, embeddings(body));
    }
    const answer = unmetered(bill('sync', reply(api, body, fault), recorded), fault);
    return send(res, answer.status, answer.body, answer.headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    inject: (...faults) => queued.push(...faults),
    setRule: (next) => {
      rule = next;
    },
    batches: batches.controls,
    billed: () => {
      batches.upToDate();
      return structuredClone(billed);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fault that decides the reply's content itself (automatic truncation stays out of its way). */
function replyFault(fault: Fault | undefined): boolean {
  return fault !== undefined && fault.kind !== 'slow';
}

/** The request's max_tokens (0 when it sets none). */
const asked = (body: Json) => Number(body.max_tokens ?? body.max_completion_tokens ?? 0);

export function withFault(
  fields: Json,
  request: StageRequest,
  fault: Fault | undefined,
  maxTokens: number,
): Json {
  // A pair's fault is V1's: the reply as a whole is what fails.
  if (request.stage === 'pair')
    return { ...fields, v1: withFault(fields.v1 as Json, { ...request, stage: 'v1' }, fault, maxTokens) };
  const main = request.stage === 'v1' ? 'compressedContent' : 'coreMemory';
  switch (fault?.kind) {
    case 'schema': {
      const { [main]: _dropped, ...rest } = fields;
      return rest;
    }
    case 'wrong-language':
      return { ...fields, [main]: WRONG_LANGUAGE[request.language] };
    case 'simplified':
      return { ...fields, [main]: toSimplified(String(fields[main])) };
    case 'too-long': {
      // Three times the target, or as much as max_tokens holds: a provider never bills more.
      let text = String(fields[main]).repeat(
        Math.ceil((request.target.max * 3) / String(fields[main]).length),
      );
      const reply = () => ({ ...fields, [main]: text });
      while (maxTokens > 0 && tokens(JSON.stringify(reply())) > maxTokens && text.length > 1)
        text = text.slice(0, Math.floor(text.length * 0.9));
      return reply();
    }
    default:
      return fields;
  }
}

/** What a tool input cut off by max_tokens holds: its first field, half written. */
function partial(fields: Json): Json {
  const [key, value] = Object.entries(fields)[0] ?? ['', ''];
  const text = String(value);
  return { [key]: [...text].slice(0, Math.ceil([...text].length / 2)).join('') };
}

/** The system prompt as text: Anthropic's blocks joined, or OpenAI's first message. */
function systemText(api: string, body: Json): string {
  if (api !== 'messages') return String((body.messages as Json[])[0]?.content ?? '');
  const system = body.system;
  if (typeof system === 'string') return system;
  return ((system as Json[] | undefined) ?? []).map((block) => String(block.text ?? '')).join('\n');
}

function schemaName(body: Json): string {
  const format = body.response_format as Json | undefined;
  if (format?.type === 'json_schema') return (format.json_schema as Json).name as string;
  // json_object mode: the stage (or QA call) shows in the schema and tool the prompt names.
  const system = String((body.messages as Json[])[0]?.content ?? '');
  for (const name of Object.values(QA_TOOLS)) if (system.includes(name)) return name;
  if (system.includes('record_v1_and_v2_memory')) return 'record_v1_and_v2_memory';
  return system.includes('coreMemory') ? 'record_v2_memory' : 'record_v1_memory';
}

function userTexts(body: Json): string[] {
  return (body.messages as Json[])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}

function embeddings(body: Json): Json {
  const inputs = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
  const dimensions = Number(body.dimensions ?? 256);
  const data = inputs.map((text, index) => {
    const seed = createHash('sha256').update(text).digest();
    const vector = Array.from({ length: dimensions }, (_, i) => (seed[i % seed.length]! - 128) / 128);
    // The OpenAI SDK asks for base64 (packed float32) unless told otherwise, and decodes it.
    const embedding =
      body.encoding_format === 'base64'
        ? Buffer.from(new Float32Array(vector).buffer).toString('base64')
        : vector;
    return { object: 'embedding', index, embedding };
  });
  return {
    object: 'list',
    data,
    model: body.model,
    usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
