import { SseDecoder, type SseMessage } from '../../src/sse/decode.js';

/** Reads a whole SSE response body into messages. */
export async function readSse(res: Response): Promise<SseMessage[]> {
  const d = new SseDecoder();
  const out: SseMessage[] = [];
  const text = await res.text();
  out.push(...d.push(text), ...d.end());
  return out;
}

/**
 * A `fetch` for the SDK clients that keeps a copy of every event-stream body the gateway sends,
 * so the raw SSE behind an SDK call can be checked too. The body is read whole before the SDK
 * sees it (the gateway ends its streams itself), so an SDK that aborts on an `event: error`
 * cannot cut the copy short. `sentHeaders` (optional) receives the headers of every request sent.
 */
export function recordingFetch(streams: string[], sentHeaders?: Array<Record<string, string>>): typeof fetch {
  return async (input, init) => {
    sentHeaders?.push(Object.fromEntries(new Headers(init?.headers).entries()));
    const res = await fetch(input, init);
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    const text = await res.text();
    streams.push(text);
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The data of each event of an SSE text, parsed as JSON (`[DONE]` kept as the string). */
export function sseData(text: string): any[] {
  return text
    .split('\n\n')
    .filter((e) => e.includes('data:'))
    .map((e) => {
      const d = e
        .split('\n')
        .find((l) => l.startsWith('data:'))!
        .slice(5)
        .trim();
      return d === '[DONE]' ? '[DONE]' : JSON.parse(d);
    });
}
