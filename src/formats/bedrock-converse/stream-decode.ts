/**
 * ConverseStream events (event-stream.ts turns the frames into messages) → canonical events.
 * Order: messageStart, per block contentBlockStart (tool uses only) / contentBlockDelta* /
 * contentBlockStop, messageStop (stopReason), metadata (usage). A text or reasoning block has no
 * start event: its first delta opens it. The stream is complete after messageStop; the canonical
 * message_stop waits for the usage that follows it. An exception frame is the upstream's error.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */

import type { StreamEvent, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import { isObject, type Json } from '../../core/json.js';
import type { SseMessage } from '../../sse/decode.js';
import { bedrockStreamError } from './errors.js';
import { fromBedrockStopReason } from './stop-reason.js';
import { usageFromBedrock } from './usage.js';

type Open = { index: number; kind: 'text' | 'reasoning' | 'tool_call' };

export async function* decodeBedrockStream(messages: AsyncIterable<SseMessage>): AsyncGenerator<StreamEvent> {
  let started = false;
  let blocks = 0;
  // Bedrock's contentBlockIndex → the open canonical block.
  const open = new Map<number, Open>();
  let stopReason: unknown;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };

  for await (const msg of messages) {
    const event = msg.event ?? '';
    const payload = parsePayload(msg.data);
    if (event.startsWith('exception:')) {
      yield { type: 'error', error: bedrockStreamError(event.slice('exception:'.length), payload) };
      return;
    }
    if (!started) {
      started = true;
      yield { type: 'message_start', id: randomId('bedrock-'), model: '', created: Math.floor(Date.now() / 1000) };
    }
    const at = typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : -1;
    switch (event) {
      case 'contentBlockStart': {
        const tool = isObject(payload.start) && isObject(payload.start.toolUse) ? payload.start.toolUse : undefined;
        if (!tool) break;
        const block = { index: blocks++, kind: 'tool_call' as const };
        open.set(at, block);
        const id = typeof tool.toolUseId === 'string' ? tool.toolUseId : '';
        const name = typeof tool.name === 'string' ? tool.name : '';
        yield { type: 'block_start', index: block.index, block: { kind: 'tool_call', id, name } };
        break;
      }
      case 'contentBlockDelta': {
        const delta = isObject(payload.delta) ? payload.delta : {};
        for (const e of decodeDelta(delta, at, open, () => blocks++)) yield e;
        break;
      }
      case 'contentBlockStop': {
        const block = open.get(at);
        open.delete(at);
        if (block) yield { type: 'block_stop', index: block.index };
        break;
      }
      case 'messageStop':
        stopReason = payload.stopReason;
        break;
      case 'metadata':
        if (isObject(payload.usage)) usage = usageFromBedrock(payload.usage);
        break;
    }
  }
  if (stopReason === undefined)
    throw new GatewayError('upstream_unavailable', 'The upstream stream ended early (no messageStop).');
  for (const block of open.values()) yield { type: 'block_stop', index: block.index };
  yield { type: 'message_stop', finish: fromBedrockStopReason(stopReason), usage };
}

/** A delta, opening its text or reasoning block on the first one. */
function* decodeDelta(delta: Json, at: number, open: Map<number, Open>, next: () => number): Generator<StreamEvent> {
  const kind = typeof delta.text === 'string' ? 'text' : isObject(delta.reasoningContent) ? 'reasoning' : undefined;
  let block = open.get(at);
  if (!block && kind) {
    block = { index: next(), kind };
    open.set(at, block);
    yield { type: 'block_start', index: block.index, block: { kind } };
  }
  if (!block) return;
  if (block.kind === 'text' && typeof delta.text === 'string')
    yield { type: 'block_delta', index: block.index, delta: { kind: 'text', text: delta.text } };
  else if (block.kind === 'tool_call' && isObject(delta.toolUse) && typeof delta.toolUse.input === 'string')
    yield { type: 'block_delta', index: block.index, delta: { kind: 'tool_arguments', json: delta.toolUse.input } };
  else if (block.kind === 'reasoning' && isObject(delta.reasoningContent)) {
    const r = delta.reasoningContent;
    if (typeof r.text === 'string')
      yield { type: 'block_delta', index: block.index, delta: { kind: 'reasoning', text: r.text } };
    if (typeof r.signature === 'string')
      yield { type: 'block_delta', index: block.index, delta: { kind: 'signature', signature: r.signature } };
  }
}

function parsePayload(data: string): Json {
  if (data.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(data);
    if (isObject(parsed)) return parsed;
  } catch {
    // the throw below says it
  }
  throw new GatewayError('upstream_error', 'The upstream sent an event stream payload that is not a JSON object.');
}
