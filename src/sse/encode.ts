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

/** `data: <json>\n\n` — the common case, without the generic checks. */
export function sseData(json: string): string {
  return `data: ${json}\n\n`;
}
