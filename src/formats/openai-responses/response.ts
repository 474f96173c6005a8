/**
 * OpenAI `response` object ⇄ canonical ChatResponse. The object a Responses caller receives is
 * complete: besides the output and usage it echoes the request settings clients read back
 * (`instructions`, `tools`, `text`, `reasoning`…), with the members the openai SDK's types
 * require and the AI SDK's schema checks.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */

import { flatMapArray } from '../../core/flat-map.js';
import type { ChatRequest, ChatResponse, ContentPart, ResponseFormat, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import { isObject, type Json } from '../../core/json.js';
import { upstreamFailure } from './errors.js';
import {
  customArguments,
  customCallItem,
  customInput,
  functionCallItem,
  isCustomTool,
  messageItem,
} from './output-items.js';
import { itemIdFor } from '../openai-responses-ids.js';
import { reasoningItemToPart, reasoningPartToItem } from './reasoning.js';
import { fromResponsesStatus, type ResponsesOutcome, toResponsesStatus } from './stop-reason.js';
import { usageFromResponses, usageToResponses } from './usage.js';

/** Response ids start with `resp_`; ids from other formats get the prefix. */
export function responsesId(id: string): string {
  if (id.length === 0) return randomId('resp_');
  return id.startsWith('resp_') ? id : `resp_${id}`;
}

/** What the response says about itself, from its first event on. */
export interface ResponseHead {
  id: string;
  model: string;
  created: number;
}

export type ResponseState = ResponsesOutcome | { status: 'in_progress'; incomplete_details: null };

/**
 * The `response` object in OpenAI's member order: the body of a JSON answer, and what
 * `response.created` (in progress, no output yet) and the final stream event carry.
 */
export function responseObject(
  head: ResponseHead,
  req: ChatRequest,
  state: ResponseState,
  output: Json[],
  usage: Usage | undefined,
): Json {
  return {
    id: responsesId(head.id),
    object: 'response',
    created_at: head.created,
    status: state.status,
    background: false,
    // The AI SDK's schema wants `type` and `code` in an error object, the openai SDK's `code` and `message`.
    error:
      state.status === 'failed'
        ? { type: 'server_error', code: 'server_error', message: 'The model failed to complete the response.' }
        : null,
    incomplete_details: state.incomplete_details,
    instructions: instructions(req),
    max_output_tokens: req.maxTokens ?? null,
    max_tool_calls: null,
    model: head.model,
    output,
    parallel_tool_calls: req.parallelToolCalls ?? true,
    previous_response_id: req.echo?.previous_response_id ?? null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: null },
    // What the caller asked (the gateway keeps a translated response: pipeline/conversation.ts).
    store: req.echo?.store ?? true,
    temperature: req.temperature ?? 1,
    text: { format: textFormat(req.responseFormat) },
    tool_choice: toolChoice(req),
    tools: req.tools.map((t) =>
      t.custom
        ? { type: 'custom', name: t.name, ...(t.description !== undefined ? { description: t.description } : {}) }
        : {
            type: 'function',
            name: t.name,
            description: t.description ?? null,
            parameters: t.parameters,
            strict: null,
          },
    ),
    top_logprobs: 0,
    top_p: req.topP ?? 1,
    truncation: 'disabled',
    usage: usage === undefined ? null : usageToResponses(usage),
    ...(req.user !== undefined ? { user: req.user } : {}),
    metadata: req.echo?.metadata ?? {},
  };
}

function instructions(req: ChatRequest): string | null {
  const texts = flatMapArray(req.system, (p) => (p.type === 'text' ? [p.text] : []));
  return texts.length === 0 ? null : texts.join('\n\n');
}

function textFormat(f: ResponseFormat | undefined): Json {
  if (f === undefined) return { type: 'text' };
  if (f.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: f.name ?? 'response',
    schema: f.schema,
    strict: f.strict ?? null,
    ...(f.description !== undefined ? { description: f.description } : {}),
  };
}

function toolChoice(req: ChatRequest): unknown {
  const tc = req.toolChoice;
  if (tc === undefined) return 'auto';
  if (tc.type !== 'tool') return tc.type;
  return { type: isCustomTool(req, tc.name) ? 'custom' : 'function', name: tc.name };
}

/**
 * Canonical reply → output items, in order: reasoning, each text as its own message, and tool
 * calls (`custom_tool_call` for the caller's custom tools). Empty texts, and reasoning with
 * nothing to read or send back, are left out (a stream writes no item for them either).
 * `responseId`: the items' ids are made from it; an OpenAI reasoning item keeps its own.
 */
export function outputItems(content: ContentPart[], req: ChatRequest, responseId: string): Json[] {
  const out: Json[] = [];
  for (const part of content) {
    const index = out.length;
    if (part.type === 'text') {
      if (part.text.length > 0) out.push(messageItem(itemIdFor('message', responseId, index), 'completed', part.text));
    } else if (part.type === 'reasoning') {
      const opaque = part.encrypted ?? part.signature ?? part.redacted;
      if (part.text.length > 0 || opaque !== undefined)
        out.push(reasoningPartToItem(part, part.id ?? itemIdFor('reasoning', responseId, index)));
    } else if (part.type === 'tool_call') {
      out.push(
        isCustomTool(req, part.name)
          ? customCallItem(
              itemIdFor('custom_tool_call', responseId, index),
              'completed',
              part.id,
              part.name,
              customInput(part.arguments),
            )
          : functionCallItem(
              itemIdFor('function_call', responseId, index),
              'completed',
              part.id,
              part.name,
              part.arguments,
            ),
      );
    }
    // image and tool_result parts cannot occur in a reply.
  }
  return out;
}

/** Canonical response → the `response` object (`req`: the caller's request, echoed). */
export function encodeResponsesResponse(res: ChatResponse, req: ChatRequest): Json {
  const head = { id: responsesId(res.id), model: res.model, created: res.created };
  const output = outputItems(res.content, req, head.id);
  return responseObject(head, req, toResponsesStatus(res.finish), output, res.usage);
}

/** What the output items of a response say, besides their parts. */
export interface OutputNotes {
  refused: boolean;
  calledTools: boolean;
}

/**
 * One upstream output item → canonical parts: message text and refusals become text (a refusal
 * finishes with content_filter), function and custom tool calls tool calls (a custom call's input
 * as `{"input": …}` arguments), a reasoning item a reasoning part. Hosted tool items (web
 * search…) give nothing: translation never asks for them.
 */
export function outputItemParts(item: unknown, notes: OutputNotes): ContentPart[] {
  if (!isObject(item)) return [];
  switch (item.type) {
    case 'message': {
      const out: ContentPart[] = [];
      for (const p of Array.isArray(item.content) ? item.content : []) {
        if (!isObject(p)) continue;
        if (p.type === 'output_text' && typeof p.text === 'string') out.push({ type: 'text', text: p.text });
        else if (p.type === 'refusal' && typeof p.refusal === 'string') {
          notes.refused = true;
          out.push({ type: 'text', text: p.refusal });
        }
      }
      return out;
    }
    case 'function_call':
    case 'custom_tool_call': {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string') return [];
      notes.calledTools = true;
      const args =
        item.type === 'function_call' ? stringOr(item.arguments, '') : customArguments(stringOr(item.input, ''));
      return [{ type: 'tool_call', id: item.call_id, name: item.name, arguments: args }];
    }
    case 'reasoning':
      return [reasoningItemToPart(item)];
    default:
      return [];
  }
}

/**
 * Upstream `response` object → canonical. A `failed` response is the upstream's error, with its
 * message, so routing can move on as for an HTTP error.
 */
export function decodeResponsesResponse(body: unknown): ChatResponse {
  if (!isObject(body) || !Array.isArray(body.output)) {
    throw new GatewayError('upstream_error', 'The upstream sent a response that is not a Responses object.');
  }
  if (body.status === 'failed') throw upstreamFailure(body.error);
  const notes: OutputNotes = { refused: false, calledTools: false };
  const content = flatMapArray(body.output, (item) => outputItemParts(item, notes));
  const details = isObject(body.incomplete_details) ? body.incomplete_details : {};
  return {
    id: stringOr(body.id, ''),
    model: stringOr(body.model, ''),
    created: typeof body.created_at === 'number' ? body.created_at : Math.floor(Date.now() / 1000),
    content,
    finish: notes.refused ? 'content_filter' : fromResponsesStatus(body.status, details.reason, notes.calledTools),
    usage: usageFromResponses(body.usage) ?? { inputTokens: 0, outputTokens: 0 },
  };
}

function stringOr(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}
