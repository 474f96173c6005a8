/**
 * Canonical ChatRequest → Bedrock Converse request (the model goes in the URL, not the body).
 * What cannot be carried is refused with a 400 naming it; what is left out without changing the
 * conversation's meaning is named in `dropped`: the request's hints, `user`,
 * `parallel_tool_calls`, reasoning of earlier turns without an Anthropic signature (Claude
 * refuses unsigned thinking), and reasoning settings for a model that does not think.
 * Mid-conversation system messages join `system`, in order; consecutive messages of one role
 * are merged (Converse wants user and assistant turns to alternate).
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */

import { appendAll, flatMapArray } from '../../core/flat-map.js';
import { allSystemParts } from '../system-parts.js';
import type { ChatRequest, ContentPart, ToolChoice } from '../../core/canonical.js';
import type { Json } from '../../core/json.js';
import { invalid, toolArgumentsObject } from '../field-types.js';
import {
  converseMaxTokens,
  defaultOutputCap,
  EFFORT_BUDGET_TOKENS,
  MIN_THINKING_BUDGET,
  thinkingBudget,
  thinksAdaptively,
} from '../output-cap.js';
import type { EncodeTarget } from '../types.js';
import { anthropicModelThinksAdaptively, bedrockClaudeName } from '../model-traits.js';
import { bedrockModelThinks } from './model-traits.js';

type Turn = { role: 'user' | 'assistant'; content: Json[] };

/** Image media types → Converse's `format`. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export function encodeBedrockRequest(
  req: ChatRequest,
  target: EncodeTarget,
  dropped: string[] = [],
): Record<string, unknown> {
  if (req.unmapped.length > 0)
    throw invalid(req.unmapped[0], `${req.unmapped.join(', ')} cannot be translated to the Bedrock Converse format.`);
  if ((req.n ?? 1) > 1) throw invalid('n', 'n above 1 cannot be sent to a Bedrock model through the gateway.');
  if (req.responseFormat)
    throw invalid('response_format', 'Structured output cannot be sent to a Bedrock model through the gateway.');
  dropped.push(...(req.hints ?? []));
  if (req.user !== undefined) dropped.push('user');
  const out: Json = { messages: encodeMessages(req, dropped) };
  const system = allSystemParts(req);
  const texts = system.map((p, i) => systemText(p, i)).filter((t) => t.length > 0);
  if (texts.length > 0) out.system = texts.map((text) => ({ text }));
  if (req.tools.length > 0) out.toolConfig = toolConfig(req, dropped);
  const thinks = req.reasoning !== undefined && bedrockModelThinks(target.model, target.reasoning);
  if (req.reasoning && !thinks) dropped.push(...(req.reasoning.fields ?? ['reasoning']));
  const config = inferenceConfig(req, target, thinks);
  out.inferenceConfig = config;
  const extra = additionalFields(req, target, thinks, config.maxTokens as number, dropped);
  if (Object.keys(extra).length > 0) out.additionalModelRequestFields = extra;
  return out;
}

function systemText(p: ContentPart, i: number): string {
  if (p.type !== 'text') throw invalid('system', `system part ${i} (${p.type}) cannot be sent to a Bedrock model.`);
  return p.text;
}

function encodeMessages(req: ChatRequest, dropped: string[]): Turn[] {
  const out: Turn[] = [];
  req.messages.forEach((m, i) => {
    if (m.role === 'system') return;
    const content = flatMapArray(m.content, (p) => encodePart(p, `messages[${i}]`, dropped));
    if (content.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === m.role) appendAll(last.content, content);
    else out.push({ role: m.role, content });
  });
  if (out.length === 0)
    throw invalid('messages', 'The conversation has no content that can be sent to a Bedrock model.');
  return out;
}

function encodePart(p: ContentPart, at: string, dropped: string[]): Json[] {
  switch (p.type) {
    case 'text':
      return p.text.length > 0 ? [{ text: p.text }] : [];
    case 'image':
      return [{ image: encodeImage(p, at) }];
    case 'tool_call':
      return [{ toolUse: { toolUseId: p.id, name: p.name, input: toolArgumentsObject(p, at) } }];
    case 'tool_result':
      return [
        {
          toolResult: {
            toolUseId: p.toolCallId,
            content: resultContent(p, at),
            status: p.isError ? 'error' : 'success',
          },
        },
      ];
    case 'reasoning':
      if (p.redacted !== undefined) return [{ reasoningContent: { redactedContent: p.redacted } }];
      if (p.signature !== undefined)
        return [{ reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } }];
      if (!dropped.includes('messages.reasoning')) dropped.push('messages.reasoning');
      return [];
  }
}

function encodeImage(p: Extract<ContentPart, { type: 'image' }>, at: string): Json {
  if (p.source.kind === 'url')
    throw invalid(at, `An image in ${at} is given by URL; a Bedrock model takes images as base64 data only.`);
  const format = IMAGE_FORMATS[p.source.mediaType.toLowerCase()];
  if (!format)
    throw invalid(at, `An image in ${at} is ${p.source.mediaType}; Bedrock takes PNG, JPEG, GIF and WebP images.`);
  return { format, source: { bytes: p.source.data } };
}

function resultContent(p: Extract<ContentPart, { type: 'tool_result' }>, at: string): Json[] {
  const content = p.content.map((c): Json => {
    if (c.type === 'text') return { text: c.text };
    if (c.type === 'image') return { image: encodeImage(c, at) };
    throw invalid(at, `A tool result in ${at} contains ${c.type} content, which a Bedrock tool result cannot carry.`);
  });
  // Converse refuses a tool result without content.
  return content.length > 0 ? content : [{ text: '' }];
}

function toolConfig(req: ChatRequest, dropped: string[]): Json {
  const config: Json = {
    tools: req.tools.map((t) => ({
      toolSpec: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        inputSchema: { json: t.parameters },
      },
    })),
  };
  const choice = encodeToolChoice(req.toolChoice);
  if (choice) config.toolChoice = choice;
  if (req.parallelToolCalls === false) dropped.push('parallel_tool_calls');
  return config;
}

function encodeToolChoice(choice: ToolChoice | undefined): Json | undefined {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case 'auto':
      return { auto: {} };
    case 'required':
      return { any: {} };
    case 'tool':
      return { tool: { name: choice.name } };
    case 'none':
      // Converse has no "none"; the tools must stay declared when the conversation holds tool uses.
      throw invalid(
        'tool_choice',
        'tool_choice "none" cannot be sent to a Bedrock model (Converse has no such choice).',
      );
  }
}

function inferenceConfig(req: ChatRequest, target: EncodeTarget, thinks: boolean): Json {
  // Always a cap, so what the upstream can bill is bounded (output-cap.ts); Claude counts its thinking in it.
  const maxTokens = thinks
    ? converseMaxTokens(req, target.maxOutputTokens)
    : (req.maxTokens ?? defaultOutputCap(target.maxOutputTokens));
  const config: Json = { maxTokens };
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.topP !== undefined) config.topP = req.topP;
  if (req.stop && req.stop.length > 0) config.stopSequences = req.stop;
  return config;
}

/** Claude's own fields: `thinking` (with `output_config.effort` when adaptive) and `top_k`, which Converse lacks. */
function additionalFields(
  req: ChatRequest,
  target: EncodeTarget,
  thinks: boolean,
  maxTokens: number,
  dropped: string[],
): Json {
  const extra: Json = {};
  const claude = bedrockClaudeName(target.model) !== undefined;
  if (req.topK !== undefined) {
    if (claude) extra.top_k = req.topK;
    else dropped.push('top_k');
  }
  if (!thinks) return extra;
  if (!thinksAdaptively(req)) {
    const budget = thinkingBudget(req);
    if (budget !== undefined) extra.thinking = { type: 'enabled', budget_tokens: budget };
  } else if (anthropicModelThinksAdaptively(target.model)) {
    // Claude's own form: an adaptive thinker is steered by its effort (a budget carries it otherwise).
    extra.thinking = { type: 'adaptive' };
    if (req.reasoning?.effort !== undefined) extra.output_config = { effort: req.reasoning.effort };
  } else {
    // A Claude before 4.6 takes a budget only: its effort's (Claude's default effort is high), inside max_tokens
    // as adaptive thinking would be, leaving room for the answer.
    const budget = Math.min(thinkingBudget(req) ?? EFFORT_BUDGET_TOKENS.high, maxTokens - 1);
    if (budget >= MIN_THINKING_BUDGET) extra.thinking = { type: 'enabled', budget_tokens: budget };
    else dropped.push(...(req.reasoning?.fields ?? ['reasoning']));
  }
  return extra;
}
