import type { SseMessage } from './decode.js';

/** Encode one SSE message. Multi-line data becomes several `data:` lines. */
export function encodeSse(msg: SseMessage): string {
  let out = '';
  if (msg.event !== undefined) {
    if (/[\r\n]/.test(msg.event)) throw new Error('SSE event name must not contain a line break');
    out += `event: ${msg.event}\n`;
  }
  if (msg.data.includes('\n') || msg.data.includes('\r')) {
    for (const line of msg.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  } else {
    out += `data: ${msg.data}\n`;
  }
  return `${out}\n`;
}

/**
 * A named event whose data is a JSON object with `type` first (Anthropic and Responses name each
 * event twice): `members` is the text of its other members, without braces ('' for none). Written
 * as text, not by stringifying `{ type, ...payload }` (a spread per event on every stream). `type`
 * must be one of the encoders' own fixed names: it is not escaped.
 */
export function sseTypedEvent(type: string, members: string): string {
  return `event: ${type}\ndata: {"type":"${type}"${members.length > 0 ? `,${members}` : ''}}\n\n`;
}

/** An object's JSON members without the braces, for sseTypedEvent ('' for an empty object). */
export function jsonMembers(value: object): string {
  return JSON.stringify(value).slice(1, -1);
}

/** `data: <json>\n\n` — the common case, without the generic checks. */
export function sseData(json: string): string {
  return `data: ${json}\n\n`;
}
