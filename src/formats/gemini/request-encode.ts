/**
 * Canonical ChatRequest → Gemini `GenerateContentRequest` (the model goes in the URL, not the
 * body). What cannot be carried is refused with a 400 naming it; what is left out without
 * changing the conversation's meaning is named in `dropped`:
 * - the request's hints, `user`, `parallel_tool_calls` (Gemini has no such settings);
 * - reasoning parts of earlier turns (Gemini keeps its thinking in the signatures its calls
 *   carry, tool-ids.ts; summaries are not sent back);
 * - schema keywords Gemini's tool `Schema` lacks (schema.ts).
 * Mid-conversation system messages join `systemInstruction`, in order; consecutive messages of
 * one role are merged (Gemini wants user and model turns to alternate).
 * A model turn's calls that no Gemini model signed (another model made them: a conversation moved
 * over, a fallback) get Google's documented placeholder signature on a thinking model, which
 * otherwise refuses the follow-up (400 "missing a thought_signature").
 * @see https://ai.google.dev/api/generate-content#request-body
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */

import { appendAll, flatMapArray } from '../../core/flat-map.js';
import { allSystemParts } from '../system-parts.js';
import type { ChatRequest, ContentPart, ResponseFormat, ToolChoice } from '../../core/canonical.js';
import { isObject, type Json } from '../../core/json.js';
import { invalid, toolArgumentsObject } from '../field-types.js';
import { defaultOutputCap, thinkingBudget } from '../output-cap.js';
import type { EncodeTarget } from '../types.js';
import { geminiModelTakesThinkingLevel, geminiModelThinks } from './model-traits.js';
import { toGeminiSchema } from './schema.js';
import { signatureFromToolCallId } from '../gemini-tool-ids.js';

type Turn = { role: 'user' | 'model'; parts: Json[] };

export function encodeGeminiRequest(
  req: ChatRequest,
  target: EncodeTarget,
  dropped: string[] = [],
): Record<string, unknown> {
  if (req.unmapped.length > 0)
    throw invalid(req.unmapped[0], `${req.unmapped.join(', ')} cannot be translated to the Gemini format.`);
  if ((req.n ?? 1) > 1) throw invalid('n', 'n above 1 cannot be sent to a Gemini model through the gateway.');
  // Gemini before 3 refuses a JSON response type next to function declarations.
  if (req.responseFormat && req.tools.length > 0 && !geminiModelTakesThinkingLevel(target.model))
    throw invalid(
      'response_format',
      'Structured output cannot be combined with tools on Gemini models before Gemini 3.',
    );
  dropped.push(...(req.hints ?? []));
  if (req.user !== undefined) dropped.push('user');
  const contents = encodeContents(req, dropped);
  if (geminiModelThinks(target.model)) for (const turn of contents) signFirstCall(turn);
  const out: Json = { contents };
  const system = allSystemParts(req);
  const instruction = system.map((p, i) => systemText(p, i)).filter((t) => t.length > 0);
  if (instruction.length > 0) out.systemInstruction = { parts: instruction.map((text) => ({ text })) };
  if (req.tools.length > 0) {
    out.tools = [
      {
        functionDeclarations: req.tools.map((t, i) => ({
          name: t.name,
          ...(t.description !== undefined ? { description: t.description } : {}),
          ...(hasProperties(t.parameters)
            ? { parameters: toGeminiSchema(t.parameters, `tools[${i}].parameters`, dropped) }
            : {}),
        })),
      },
    ];
    const config = encodeToolChoice(req.toolChoice);
    if (config) out.toolConfig = { functionCallingConfig: config };
    if (req.parallelToolCalls === false) dropped.push('parallel_tool_calls');
  }
  out.generationConfig = generationConfig(req, target, dropped);
  return out;
}

function systemText(p: ContentPart, i: number): string {
  if (p.type !== 'text') throw invalid('system', `system part ${i} (${p.type}) cannot be sent to a Gemini model.`);
  return p.text;
}

/** An object schema without properties is sent as no parameters (Gemini refuses an OBJECT with none). */
function hasProperties(schema: Json): boolean {
  return isObject(schema.properties) && Object.keys(schema.properties).length > 0;
}

function encodeContents(req: ChatRequest, dropped: string[]): Turn[] {
  const out: Turn[] = [];
  const callNames = new Map<string, string>();
  req.messages.forEach((m, i) => {
    if (m.role === 'system') return;
    const role = m.role === 'assistant' ? 'model' : 'user';
    const parts = flatMapArray(m.content, (p) => encodePart(p, `messages[${i}]`, callNames, dropped));
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) appendAll(last.parts, parts);
    else out.push({ role, parts });
  });
  if (out.length === 0)
    throw invalid('messages', 'The conversation has no content that can be sent to a Gemini model.');
  return out;
}

/** Gemini's placeholder for a call it did not sign; its validator lets it through. */
export const UNSIGNED_CALL_SIGNATURE = 'skip_thought_signature_validator';

/** Gemini checks the signature on a model step's first call only (it signs only that one of parallel calls). */
function signFirstCall(turn: Turn): void {
  if (turn.role !== 'model') return;
  const first = turn.parts.find((p) => p.functionCall !== undefined);
  if (first && first.thoughtSignature === undefined) first.thoughtSignature = UNSIGNED_CALL_SIGNATURE;
}

function encodePart(p: ContentPart, at: string, callNames: Map<string, string>, dropped: string[]): Json[] {
  switch (p.type) {
    case 'text':
      return p.text.length > 0 ? [{ text: p.text }] : [];
    case 'image':
      return [encodeImage(p, at)];
    case 'tool_call': {
      callNames.set(p.id, p.name);
      const part: Json = { functionCall: { name: p.name, args: toolArgumentsObject(p, at) } };
      const signature = signatureFromToolCallId(p.id);
      if (signature) part.thoughtSignature = signature;
      return [part];
    }
    case 'tool_result': {
      // Gemini answers a call by its function's name: the call this result answers names it.
      const name = callNames.get(p.toolCallId);
      if (name === undefined)
        throw invalid(at, `The tool result in ${at} answers "${p.toolCallId}", which no earlier tool call has as id.`);
      return [{ functionResponse: { name, response: { [p.isError ? 'error' : 'output']: resultText(p, at) } } }];
    }
    case 'reasoning':
      if (!dropped.includes('messages.reasoning')) dropped.push('messages.reasoning');
      return [];
  }
}

function encodeImage(p: Extract<ContentPart, { type: 'image' }>, at: string): Json {
  if (p.source.kind === 'url')
    throw invalid(at, `An image in ${at} is given by URL; a Gemini model takes images as base64 data only.`);
  return { inlineData: { mimeType: p.source.mediaType, data: p.source.data } };
}

function resultText(p: Extract<ContentPart, { type: 'tool_result' }>, at: string): string {
  return p.content
    .map((c) => {
      if (c.type === 'text') return c.text;
      throw invalid(
        at,
        `A tool result in ${at} contains ${c.type} content, which a Gemini function response cannot carry.`,
      );
    })
    .join('');
}

function encodeToolChoice(choice: ToolChoice | undefined): Json | undefined {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  }
}

function generationConfig(req: ChatRequest, target: EncodeTarget, dropped: string[]): Json {
  // Always a cap, so what the upstream can bill is bounded (output-cap.ts).
  const config: Json = { maxOutputTokens: req.maxTokens ?? defaultOutputCap(target.maxOutputTokens) };
  if (req.stop && req.stop.length > 0) config.stopSequences = req.stop;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.topP !== undefined) config.topP = req.topP;
  if (req.topK !== undefined) config.topK = req.topK;
  if (req.responseFormat) Object.assign(config, responseFormat(req.responseFormat, dropped));
  const thinking = thinkingConfig(req, target, dropped);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

/**
 * A JSON Schema goes as `responseJsonSchema`, which takes JSON Schema as it is (the tool
 * `Schema` subset would lose keywords the caller's parser relies on).
 */
function responseFormat(f: ResponseFormat, dropped: string[]): Json {
  if (f.type === 'json_object') return { responseMimeType: 'application/json' };
  if (f.description !== undefined) dropped.push('response_format.json_schema.description');
  return { responseMimeType: 'application/json', responseJsonSchema: f.schema };
}

/**
 * The caller's reasoning as Gemini's `thinkingConfig`: a budget (Gemini 2.5), or a level for
 * Gemini 3 (low up to `low`, high above); thought summaries are asked for, to come back as
 * reasoning. A model that does not think gets none, its fields named in `dropped`.
 */
function thinkingConfig(req: ChatRequest, target: EncodeTarget, dropped: string[]): Json | undefined {
  const r = req.reasoning;
  if (!r) return undefined;
  if (!geminiModelThinks(target.model, target.reasoning)) {
    dropped.push(...(r.fields ?? ['reasoning']));
    return undefined;
  }
  if (geminiModelTakesThinkingLevel(target.model) && r.budgetTokens === undefined && r.effort !== undefined)
    return { includeThoughts: true, thinkingLevel: r.effort === 'minimal' || r.effort === 'low' ? 'low' : 'high' };
  if (r.adaptive && r.budgetTokens === undefined) return { includeThoughts: true, thinkingBudget: -1 };
  const budget = thinkingBudget(req);
  if (budget !== undefined) return { includeThoughts: true, thinkingBudget: budget };
  // `minimal`: as little thinking as the model allows (Pro models cannot turn it off; 128 is their least).
  return { thinkingBudget: /pro/.test(target.model) ? 128 : 0 };
}
