/**
 * The built-in offline provider: deterministic, in-process, producing canonical stream events
 * (so it answers in whichever wire format the caller speaks). It echoes the last user message,
 * honours max_tokens (finish "length") and stop sequences, reports plausible usage, streams in
 * several chunks, and can be slowed down with `mock.latency_ms` / `mock.chunk_delay_ms`.
 */

import { type CancelSignal, sleepUnlessCancelled, throwIfCancelled } from '../core/cancel.js';
import type { MockSettings, ModelSpec } from '../config/types.js';
import type { ChatRequest, ContentPart, FinishReason, StreamEvent } from '../core/canonical.js';
import { randomId } from '../core/ids.js';

function partText(p: ContentPart): string {
  if (p.type === 'text' || p.type === 'reasoning') return p.text;
  if (p.type === 'tool_call') return p.name + p.arguments;
  if (p.type === 'tool_result') return p.content.map(partText).join('');
  return '';
}

/** ~4 characters per token, plus a small per-message overhead, as a stand-in for a tokenizer. */
export function estimateInputTokens(chat: ChatRequest): number {
  let chars = chat.system.map(partText).join('').length;
  for (const m of chat.messages) chars += m.content.map(partText).join('').length;
  for (const t of chat.tools)
    chars += t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.parameters).length;
  return Math.ceil(chars / 4) + 3 * chat.messages.length + 3;
}

/** The reply text and why it ended, before chunking. */
export function mockReply(chat: ChatRequest): { pieces: string[]; finish: FinishReason } {
  const lastUser = [...chat.messages].reverse().find((m) => m.role === 'user');
  let text = lastUser ? lastUser.content.map(partText).join('') : '';
  if (text.trim() === '') text = 'Hello from the mock provider.';
  let finish: FinishReason = 'stop';
  for (const s of chat.stop ?? []) {
    const at = s ? text.indexOf(s) : -1;
    if (at !== -1) text = text.slice(0, at);
  }
  // One "token" per word with its trailing space: enough for max_tokens and several chunks.
  let pieces: string[] = text.match(/\S+\s*|\s+/g) ?? [text];
  if (chat.maxTokens !== undefined && pieces.length > chat.maxTokens) {
    pieces = pieces.slice(0, chat.maxTokens);
    finish = 'length';
  }
  return { pieces, finish };
}

export async function* mockEvents(
  chat: ChatRequest,
  model: ModelSpec,
  settings: MockSettings | undefined,
  signal: CancelSignal,
): AsyncGenerator<StreamEvent> {
  const latency = settings?.latencyMs ?? 0;
  const gap = settings?.chunkDelayMs ?? 0;
  if (latency > 0) await sleepUnlessCancelled(latency, signal);
  throwIfCancelled(signal);
  const inputTokens = estimateInputTokens(chat);
  const { pieces, finish } = mockReply(chat);
  yield {
    type: 'message_start',
    id: randomId('chatcmpl-mock-'),
    model: model.upstreamName,
    created: Math.floor(Date.now() / 1000),
    usage: { inputTokens, outputTokens: 0 },
  };
  yield { type: 'block_start', index: 0, block: { kind: 'text' } };
  for (let i = 0; i < pieces.length; i++) {
    if (gap > 0 && i > 0) await sleepUnlessCancelled(gap, signal);
    throwIfCancelled(signal);
    yield { type: 'block_delta', index: 0, delta: { kind: 'text', text: pieces[i] } };
  }
  yield { type: 'block_stop', index: 0 };
  yield { type: 'message_stop', finish, usage: { inputTokens, outputTokens: pieces.length } };
}
