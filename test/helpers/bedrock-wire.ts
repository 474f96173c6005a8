/**
 * AWS Bedrock's Converse wire format, for the fake upstream (fake-upstream.ts): an answer
 * (upstream-wire.ts's WireAnswer) as a Converse JSON body or as ConverseStream's event-stream
 * frames (bedrock-frames.ts: headers, JSON payload, both CRCs), errors as AWS sends them
 * (`x-amzn-errortype` and `{message}`; in a stream an exception frame), and ListAsyncInvokes' answer.
 * Shares no code with src/.
 *
 * A stream is messageStart; per block (reasoning, text, each tool use) its deltas (a tool use opens
 * with contentBlockStart naming it; reasoning ends with a signature delta) and contentBlockStop;
 * then messageStop with the stop reason and metadata with the usage.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */

import { eventFrame, exceptionFrame } from './bedrock-frames.js';
import type { WireAnswer, WireError, WireUsage } from './upstream-wire.js';

const STOP_REASON = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use' } as const;

/** The exception AWS names for a status, when a reply names none. */
const EXCEPTION_BY_STATUS: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

export const BEDROCK_STREAM_TYPE = 'application/vnd.amazon.eventstream';

/** Bedrock `TokenUsage`: inputTokens excludes the cache reads and writes; totalTokens counts all four. */
function bedrockUsage(u: WireUsage): Record<string, number> {
  return {
    inputTokens: u.input,
    outputTokens: u.output,
    totalTokens: u.input + u.output + u.cacheRead + u.cacheWrite,
    ...(u.cacheRead > 0 ? { cacheReadInputTokens: u.cacheRead } : {}),
    ...(u.cacheWrite > 0 ? { cacheWriteInputTokens: u.cacheWrite } : {}),
  };
}

function content(a: WireAnswer): unknown[] {
  const blocks: unknown[] = [];
  if (a.thinking)
    blocks.push({
      reasoningContent: { reasoningText: { text: a.thinking.pieces.join(''), signature: a.thinking.signature } },
    });
  if (a.text.length > 0) blocks.push({ text: a.text.join('') });
  for (const c of a.toolCalls)
    blocks.push({ toolUse: { toolUseId: c.id, name: c.name, input: JSON.parse(c.args.join('') || '{}') } });
  return blocks;
}

export function bedrockJson(a: WireAnswer): unknown {
  return {
    output: { message: { role: 'assistant', content: content(a) } },
    stopReason: STOP_REASON[a.finish],
    usage: bedrockUsage(a.usage),
    metrics: { latencyMs: 1 },
  };
}

export function bedrockFrames(a: WireAnswer): Buffer[] {
  const frames = [eventFrame('messageStart', { role: 'assistant' })];
  let index = 0;
  const delta = (d: unknown) => eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: d });
  const stop = () => frames.push(eventFrame('contentBlockStop', { contentBlockIndex: index++ }));
  if (a.thinking) {
    for (const text of a.thinking.pieces) frames.push(delta({ reasoningContent: { text } }));
    frames.push(delta({ reasoningContent: { signature: a.thinking.signature } }));
    stop();
  }
  if (a.text.length > 0) {
    for (const text of a.text) frames.push(delta({ text }));
    stop();
  }
  for (const c of a.toolCalls) {
    const start = { toolUse: { toolUseId: c.id, name: c.name } };
    frames.push(eventFrame('contentBlockStart', { contentBlockIndex: index, start }));
    for (const input of c.args) frames.push(delta({ toolUse: { input } }));
    stop();
  }
  frames.push(eventFrame('messageStop', { stopReason: STOP_REASON[a.finish] }));
  frames.push(eventFrame('metadata', { usage: bedrockUsage(a.usage), metrics: { latencyMs: 1 } }));
  return frames;
}

/** An AWS error: `{message}`, the exception name in `x-amzn-errortype` (from the status when not given). */
export function bedrockError(
  status: number,
  e: WireError,
  headers: Record<string, string>,
): { body: unknown; headers: Record<string, string> } {
  const name =
    e.type ?? EXCEPTION_BY_STATUS[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');
  const errortype = `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
  return { body: { message: e.message }, headers: { 'x-amzn-errortype': errortype, ...headers } };
}

/** The exception frame that ends a stream (type as ConverseStream names its members: throttlingException…). */
export function bedrockStreamError(message: string, type = 'internalServerException'): Buffer {
  return exceptionFrame(type, message);
}

/** ListAsyncInvokes, the health check's call: an empty list. */
export const bedrockAsyncInvokeList = () => ({ asyncInvokeSummaries: [] });

export const bedrockRequestIdHeader = (id: string) => ({ 'x-amzn-requestid': id });
