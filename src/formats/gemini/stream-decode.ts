/**
 * Gemini `streamGenerateContent?alt=sse` → canonical events. Each `data:` is a whole
 * GenerateContentResponse holding the next parts; there is no terminator: the stream is
 * complete when a chunk has given a finish reason and the body ends (usage may come on a later
 * chunk than the reason). Text and thought parts extend the open block of their kind; each
 * function call is a complete block. An `{error}` chunk is the upstream's in-stream error.
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */

import type { FinishReason, StreamEvent, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { isObject, type Json } from '../../core/json.js';
import type { SseMessage } from '../../sse/decode.js';
import { geminiStreamError } from './errors.js';
import { answerId, candidateParts, decodePart, firstCandidate, refuseBlockedPrompt } from './response.js';
import { fromGeminiFinishReason } from './stop-reason.js';
import { usageFromGemini } from './usage.js';

export async function* decodeGeminiStream(sse: AsyncIterable<SseMessage>): AsyncGenerator<StreamEvent> {
  let id: string | undefined;
  let open: { index: number; kind: 'text' | 'reasoning' } | undefined;
  let blocks = 0;
  let calls = 0;
  let reason: unknown;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };

  for await (const msg of sse) {
    if (msg.data.length === 0) continue;
    const chunk = parseChunk(msg.data);
    if (isObject(chunk.error)) {
      yield { type: 'error', error: geminiStreamError(chunk) };
      return;
    }
    if (id === undefined) {
      // A prompt Gemini blocks is refused in the first chunk, before anything is committed.
      refuseBlockedPrompt(chunk);
      id = answerId(chunk);
      const model = typeof chunk.modelVersion === 'string' ? chunk.modelVersion : '';
      yield { type: 'message_start', id, model, created: Math.floor(Date.now() / 1000) };
    }
    if (isObject(chunk.usageMetadata)) usage = usageFromGemini(chunk.usageMetadata);
    const candidate = firstCandidate(chunk);
    for (const part of candidateParts(candidate)) {
      const p = decodePart(part, calls, id);
      if (!p) continue;
      if (p.type === 'tool_call') {
        if (open) yield { type: 'block_stop', index: open.index };
        open = undefined;
        const index = blocks++;
        calls++;
        yield { type: 'block_start', index, block: { kind: 'tool_call', id: p.id, name: p.name } };
        yield { type: 'block_delta', index, delta: { kind: 'tool_arguments', json: p.arguments } };
        yield { type: 'block_stop', index };
        continue;
      }
      if (open?.kind !== p.type) {
        if (open) yield { type: 'block_stop', index: open.index };
        open = { index: blocks++, kind: p.type };
        yield { type: 'block_start', index: open.index, block: { kind: p.type } };
      }
      yield { type: 'block_delta', index: open.index, delta: { kind: p.type, text: p.text } };
    }
    if (candidate?.finishReason !== undefined) reason = candidate.finishReason;
  }
  if (reason === undefined)
    throw new GatewayError('upstream_unavailable', 'The upstream stream ended early (no finish reason).');
  if (open) yield { type: 'block_stop', index: open.index };
  let finish: FinishReason;
  try {
    finish = fromGeminiFinishReason(reason, calls > 0);
  } catch (err) {
    yield { type: 'error', error: err as GatewayError };
    return;
  }
  yield { type: 'message_stop', finish, usage };
}

function parseChunk(data: string): Json {
  try {
    const parsed: unknown = JSON.parse(data);
    if (isObject(parsed)) return parsed;
  } catch {
    // the throw below says it
  }
  throw new GatewayError('upstream_error', 'The upstream sent an event stream message that is not a JSON object.');
}
