/**
 * The `model` a response names (README, "The model a response names"): the name the caller sent
 * (an alias or a concrete id), on every path, streams included; `x-gateway-model` carries the
 * concrete model. Clients compare it with what they asked for: Claude Code keeps an assistant
 * turn's signed thinking only when the two match, so a tool loop through an alias needs it.
 *
 * Pass-through bodies are not re-serialised: the member is rewritten in place in the text. In
 * every format the top-level `model` comes before any content, and text inside JSON strings
 * cannot hold an unescaped quote, so the first `"model": "…"` member of an event or body is the
 * one the format defines.
 */

import type { WireFormatId } from '../core/canonical.js';
import { jsonString, perName } from '../core/json-string.js';

const MODEL_MEMBER = /"model"\s*:\s*"(?:[^"\\]|\\.)*"/;
const MODEL_MEMBERS = new RegExp(MODEL_MEMBER.source, 'g');

/** The first `model` member of a JSON text, renamed. */
export function renameModelIn(text: string, name: string): string {
  const member = `"model":${jsonString(name)}`;
  return text.replace(MODEL_MEMBER, () => member);
}

/**
 * The same on a body's bytes (`text` is them decoded): an all-ASCII body (the usual case: JSON
 * escapes what is not) keeps its bytes around the member, instead of being encoded again whole.
 */
export function renameModelInBytes(raw: Buffer, text: string, name: string): Buffer {
  if (text.length !== raw.length) return Buffer.from(renameModelIn(text, name));
  const m = MODEL_MEMBER.exec(text);
  if (!m) return raw;
  const member = memberBytes(name);
  return Buffer.concat([raw.subarray(0, m.index), member, raw.subarray(m.index + m[0].length)]);
}

/** `"model":"<name>"` as bytes (shared: Buffer.concat copies them). */
const memberBytes = perName((name) => Buffer.from(`"model":${jsonString(name)}`));

/**
 * Where a relayed stream of each format names its model: OpenAI chat in every chunk (nothing
 * else in a chunk is an unescaped `model` key); Anthropic once, in `message_start`; Responses in
 * the `response` object of its lifecycle events (`response.created`, `response.in_progress`,
 * `response.completed`…), whose first `model` member is the response's (no member before it has
 * a `model` of its own), while item events may carry a `"model"` member of their own
 * (inside a hosted tool's output, say) and are left alone.
 */
export type RenameMode = 'every-event' | 'first-event' | 'response-events';

export function renameModeFor(format: WireFormatId): RenameMode {
  switch (format) {
    case 'openai-chat':
      return 'every-event';
    case 'anthropic-messages':
      return 'first-event';
    case 'openai-responses':
      return 'response-events';
  }
}

/** A `data:` line (one JSON event in every format here), up to its line end. */
const DATA_LINE = /(^|[\r\n])data:[^\r\n]*/g;
const RESPONSE_EVENT = /"type"\s*:\s*"response\.(?:created|queued|in_progress|completed|incomplete|failed)"/;

/** Renames the model in relayed SSE runs (whole events), as the format's mode says. */
export class StreamModelRenamer {
  private readonly member: string;
  private done = false;

  constructor(
    name: string,
    private readonly mode: RenameMode,
  ) {
    this.member = `"model":${jsonString(name)}`;
  }

  run(text: string): string {
    if (this.done || text.length === 0) return text;
    switch (this.mode) {
      case 'every-event':
        return text.replace(MODEL_MEMBERS, () => this.member);
      case 'response-events':
        return text.replace(DATA_LINE, (line) =>
          RESPONSE_EVENT.test(line) ? line.replace(MODEL_MEMBER, () => this.member) : line,
        );
      case 'first-event': {
        let renamed = false;
        const out = text.replace(MODEL_MEMBER, () => {
          renamed = true;
          return this.member;
        });
        if (renamed) this.done = true;
        return out;
      }
    }
  }
}
