import { SseDecoder, type SseMessage } from '../../src/sse/decode.js';

/** Reads a whole SSE response body into messages. */
export async function readSse(res: Response): Promise<SseMessage[]> {
  const d = new SseDecoder();
  const out: SseMessage[] = [];
  const text = await res.text();
  out.push(...d.push(text), ...d.end());
  return out;
}
