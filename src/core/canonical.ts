/**
 * The canonical model every wire format translates to and from (a hub, not pairwise translators).
 * When the caller's format equals the upstream's, the original bytes pass through instead and
 * policies read this canonical *view* of the request.
 */

import type { GatewayError } from './errors.js';

export type WireFormatId = 'openai-chat' | 'anthropic-messages' | 'openai-responses';
/** A format the gateway sends to upstreams: every caller format, plus upstream-only ones (Gemini, Bedrock). */
export type UpstreamFormatId = WireFormatId | 'gemini' | 'bedrock-converse';
/** How a provider's API wraps a format it speaks (formats/types.ts, Envelope): Bedrock's InvokeModel. */
export type EnvelopeId = 'bedrock-invoke';

export type ImageSource = { kind: 'url'; url: string } | { kind: 'base64'; mediaType: string; data: string };

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; source: ImageSource }
  /** `arguments` is JSON text, passed on as received. */
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_result'; toolCallId: string; content: ContentPart[]; isError?: boolean }
  /**
   * Reasoning from an earlier turn or a reply. Each format's signed form is its own: `signature`
   * (Anthropic thinking), `redacted` (the opaque data of an Anthropic redacted_thinking block,
   * `text` empty), `encrypted` (an OpenAI Responses reasoning item's `encrypted_content`, with
   * its item `id`). A format's encoder keeps only its own form (README, reasoning rule).
   */
  | { type: 'reasoning'; text: string; signature?: string; redacted?: string; encrypted?: string; id?: string };

export interface ChatMessage {
  /**
   * `system`: an instruction in the middle of the conversation (Anthropic `role: "system"`
   * messages, OpenAI system/developer messages after the first turn); text parts only.
   */
  role: 'user' | 'assistant' | 'system';
  content: ContentPart[];
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /**
   * A free-form tool (OpenAI Responses `custom`, e.g. Codex's `apply_patch`): its input is one
   * string. Towards other formats it is a function whose one argument is `{"input": string}`
   * (`parameters` says so); a Responses caller gets its calls back as `custom_tool_call` items.
   */
  custom?: boolean;
}

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string };

/** OpenAI `reasoning_effort` levels; Anthropic `output_config.effort` uses low … max. */
export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** Structured output: OpenAI `response_format`, Anthropic `output_config.format`. */
export type ResponseFormat =
  | { type: 'json_schema'; schema: Record<string, unknown>; name?: string; description?: string; strict?: boolean }
  /** Any JSON object (OpenAI `json_object`). */
  | { type: 'json_object' };

export interface ChatRequest {
  /** The model the caller named (before routing). */
  model: string;
  system: ContentPart[];
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Output limit per choice (OpenAI `max_completion_tokens` / `max_tokens`, Anthropic `max_tokens`). */
  maxTokens?: number;
  /** OpenAI `n`: choices generated, each up to maxTokens (translation refuses n > 1). */
  n?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  stream: boolean;
  /** OpenAI `stream_options.include_usage`: the caller wants the usage chunk. */
  includeUsage: boolean;
  /** End-user id: OpenAI `user` / Anthropic `metadata.user_id`. */
  user?: string;
  /** Anthropic `top_k` (no OpenAI equivalent). */
  topK?: number;
  /**
   * Extended thinking / reasoning: Anthropic `thinking` (`enabled` with `budget_tokens`, or
   * `adaptive`) and `output_config.effort`, OpenAI `reasoning_effort`. `fields`: the caller's
   * field names, to name them when a translation must drop the reasoning.
   */
  reasoning?: { budgetTokens?: number; effort?: ReasoningEffort; adaptive?: boolean; fields?: string[] };
  /** The reply must be JSON (OpenAI `response_format`, Anthropic `output_config.format`). */
  responseFormat?: ResponseFormat;
  /**
   * Fields of the source format, sent with a non-default value, that do not change the meaning of
   * the conversation (caching and context-management hints, platform bookkeeping). Pass-through
   * forwards them; translation drops them and lists them in `x-gateway-dropped-fields`.
   */
  hints?: string[];
  /**
   * Top-level fields of the source format that carry a non-default value and have no canonical
   * representation (e.g. OpenAI `n: 2`, `logprobs: true`). Pass-through forwards them; translation
   * to another format refuses the request with a 400 naming them, never dropping them silently.
   */
  unmapped: string[];
  /**
   * Members of the caller's request that its format's response repeats back and that mean
   * nothing to a model (Responses: `store`, `metadata`, `previous_response_id`).
   */
  echo?: Record<string, unknown>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

export interface Usage {
  /** Input tokens not served from cache (Anthropic `input_tokens` semantics). */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Reasoning tokens, when the upstream reports them: part of outputTokens, never added to it. */
  reasoningTokens?: number;
  /** Anthropic server tools run for this request (billed per use); absent when none ran. */
  serverToolUse?: ServerToolUse;
}

export interface ServerToolUse {
  webSearchRequests?: number;
  webFetchRequests?: number;
}

export interface ChatResponse {
  id: string;
  model: string;
  created: number;
  content: ContentPart[];
  finish: FinishReason;
  /** The stop sequence that ended generation, when known. */
  stopSequence?: string;
  usage: Usage;
}

export type BlockStart = { kind: 'text' } | { kind: 'reasoning' } | { kind: 'tool_call'; id: string; name: string };

export type BlockDelta =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'signature'; signature: string }
  | { kind: 'tool_arguments'; json: string };

export type StreamEvent =
  | { type: 'message_start'; id: string; model: string; created: number; usage?: Partial<Usage> }
  | { type: 'block_start'; index: number; block: BlockStart }
  | { type: 'block_delta'; index: number; delta: BlockDelta }
  | { type: 'block_stop'; index: number }
  | { type: 'message_stop'; finish: FinishReason; stopSequence?: string; usage: Usage }
  /** Only after the stream has been committed to the caller. */
  | { type: 'error'; error: GatewayError };

export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}

/** Total prompt tokens the OpenAI way (cached tokens included). */
export function promptTokensIncludingCache(u: Usage): number {
  return u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
}
