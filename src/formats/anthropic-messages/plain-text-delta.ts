/**
 * Most of an Anthropic stream is text deltas, which Anthropic writes in one fixed shape:
 * `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`. The stream
 * decoder and the relay's watch read such a line without JSON.parse when the text needs no
 * decoding.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#text-delta
 */

import { isPlainString, JSON_COUNT } from '../plain-json.js';

const TEXT_DELTA_HEAD = '{"type":"content_block_delta","index":';
const TEXT_DELTA_MID = ',"delta":{"type":"text_delta","text":"';
const TEXT_DELTA_END = '"}}';
const INDEX = new RegExp(`^${JSON_COUNT}$`);

/**
 * A text delta in that shape whose text has no escape, quote or control character, read from its
 * place in the line: the same result as JSON.parse (such a JSON string is the text itself) at a
 * fraction of the cost. Anything else, any other member order or spacing included, is undefined:
 * the caller parses it in full.
 */
export function plainTextDelta(data: string): { index: number; text: string } | undefined {
  if (!data.startsWith(TEXT_DELTA_HEAD) || !data.endsWith(TEXT_DELTA_END)) return undefined;
  const mid = data.indexOf(TEXT_DELTA_MID, TEXT_DELTA_HEAD.length);
  if (mid < 0) return undefined;
  const digits = data.slice(TEXT_DELTA_HEAD.length, mid);
  const start = mid + TEXT_DELTA_MID.length;
  const end = data.length - TEXT_DELTA_END.length;
  if (end < start || !INDEX.test(digits)) return undefined;
  const text = data.slice(start, end);
  return isPlainString(text) ? { index: Number(digits), text } : undefined;
}
