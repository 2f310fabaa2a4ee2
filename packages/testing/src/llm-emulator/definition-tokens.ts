import { tokens } from './replies.js';

type Json = Record<string, unknown>;

/**
 * Tokens the Claude 4 models add for tool use, by tool_choice (Anthropic, "Tool use pricing and
 * tokens": 346 with auto or none, 313 with any or a named tool), before the tools' own definitions.
 */
const TOOL_SYSTEM_PROMPT = { auto: 346, forced: 313 };
/** OpenAI's overhead for a structured-output schema beyond the schema's own tokens (about 9). */
const SCHEMA_OVERHEAD = 9;

/**
 * What a request's output definition puts before its system prompt, as the provider bills and caches
 * it: Anthropic the `tools` parameter (names, descriptions, schemas) and its tool-use system prompt;
 * OpenAI the response format's JSON schema (without `required`, `additionalProperties` and
 * `$schema`, which it does not count) and any tools. Both providers bill these as input and cache
 * them as the start of the prefix (tools, then system). `text` keys the cache; `tokens` is billed.
 */
export function definitionPrefix(api: 'messages' | 'chat', body: Json): { text: string; tokens: number } {
  if (api === 'messages') {
    const tools = body.tools as Json[] | undefined;
    if (!tools?.length) return { text: '', tokens: 0 };
    const choice = String((body.tool_choice as Json | undefined)?.type ?? 'auto');
    const system =
      choice === 'any' || choice === 'tool' ? TOOL_SYSTEM_PROMPT.forced : TOOL_SYSTEM_PROMPT.auto;
    const text = JSON.stringify(tools);
    return { text, tokens: system + tokens(text) };
  }
  const format = body.response_format as Json | undefined;
  const schema = (format?.json_schema as Json | undefined)?.schema;
  const parts = [schema && JSON.stringify(counted(schema)), body.tools && JSON.stringify(body.tools)];
  const text = parts.filter(Boolean).join('\n');
  return { text, tokens: text ? tokens(text) + (schema ? SCHEMA_OVERHEAD : 0) : 0 };
}

/** A schema as OpenAI counts it: without the keys it does not bill. */
function counted(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(counted);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node as Json)
      .filter(([key]) => key !== 'required' && key !== 'additionalProperties' && key !== '$schema')
      .map(([key, value]) => [key, counted(value)]),
  );
}
