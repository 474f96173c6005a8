/**
 * Watches a relayed OpenAI chat-completions stream (same format on both sides): every `data:`
 * but `[DONE]` must be a JSON object; `{"error": …}` is the upstream's in-stream error; usage
 * comes on the last chunk (the gateway always asks for it) and is hidden when the caller did not
 * ask for it; generated text is kept for billing a stream cut before that usage.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */

import type { ChatRequest, Usage } from '../../core/canonical.js';
import { GatewayError } from '../../core/errors.js';
import type { SseMessage } from '../../sse/decode.js';
import type { StreamWatch } from '../types.js';
import { upstreamStreamError } from './errors.js';
import { usageFromOpenai } from './usage.js';
import { plainContentChunk } from './plain-content-chunk.js';

export class OpenaiStreamWatch implements StreamWatch {
  usage: Usage | undefined;
  readonly output: string[] = [];
  private done = false;
  private finished = false;

  constructor(private readonly chat: ChatRequest) {}

  /** `[DONE]`, or a finish_reason (some compatible servers end without `[DONE]`). */
  get complete(): boolean {
    return this.done || this.finished;
  }

  see(msg: SseMessage): { drop?: boolean } | undefined {
    const data = msg.data;
    if (data === '[DONE]') {
      this.done = true;
      return undefined;
    }
    if (data.length === 0) return undefined;
    // A plain text delta: only its text matters here (no finish, usage or error in that shape).
    const text = msg.event === 'error' ? undefined : plainContentChunk(data);
    if (text !== undefined) {
      if (text.length > 0) this.output.push(text);
      return undefined;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not JSON.');
    }
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk)) {
      throw new GatewayError('upstream_error', 'The upstream sent a stream event that is not a JSON object.');
    }
    const c = chunk as { error?: unknown; usage?: unknown; choices?: unknown };
    if (msg.event === 'error' || (c.error !== undefined && c.error !== null)) throw upstreamStreamError(c.error ?? c);
    if (Array.isArray(c.choices)) for (const choice of c.choices) this.choice(choice);
    if (typeof c.usage === 'object' && c.usage !== null) {
      this.usage = usageFromOpenai(c.usage as Parameters<typeof usageFromOpenai>[0]);
      // The usage-only chunk the gateway asked for on the caller's behalf.
      if (!this.chat.includeUsage && Array.isArray(c.choices) && c.choices.length === 0) return { drop: true };
    }
    return undefined;
  }

  private choice(choice: unknown): void {
    if (typeof choice !== 'object' || choice === null) return;
    const { delta, finish_reason: finish } = choice as {
      delta?: Record<string, unknown> | null;
      finish_reason?: unknown;
    };
    if (typeof finish === 'string' && finish.length > 0) this.finished = true;
    if (typeof delta !== 'object' || delta === null) return;
    if (typeof delta.content === 'string' && delta.content.length > 0) this.output.push(delta.content);
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content.length > 0)
      this.output.push(delta.reasoning_content);
    if (typeof delta.refusal === 'string' && delta.refusal.length > 0) this.output.push(delta.refusal);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) {
        const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
        if (typeof fn?.name === 'string') this.output.push(fn.name);
        if (typeof fn?.arguments === 'string') this.output.push(fn.arguments);
      }
    }
  }
}
