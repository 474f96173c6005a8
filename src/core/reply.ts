import type { ChatResponse, StreamEvent } from './canonical.js';

/** Who is calling: the gateway key's id and its role (set by authentication). */
export interface Principal {
  keyId: string;
  role: string;
}

/**
 * What the innermost stages leave for `render` to write: bytes in the caller's format (a
 * pass-through or a stage's own answer), or the canonical form a translated or guarded answer
 * takes until the output guard has seen it; render encodes those in the caller's format.
 */
export type Reply =
  | { kind: 'json'; status: number; headers?: Record<string, string>; body: Buffer | string | object }
  /** SSE text already encoded in the caller's format; the first chunk is ready (committed). */
  | { kind: 'sse'; headers?: Record<string, string>; chunks: AsyncIterable<string | Uint8Array> }
  /** A complete response; `raw`: the upstream's own bytes in the caller's format, sent when nothing changed it. */
  | { kind: 'response'; response: ChatResponse; raw?: Buffer }
  /** A stream of canonical events, primed (its first event has arrived). */
  | { kind: 'events'; events: AsyncIterable<StreamEvent> };

export interface RelayedOutput {
  readonly output: string[];
  readonly complete: boolean;
}

export type StreamReply = Extract<Reply, { kind: 'sse' | 'events' }>;

export function isStreamReply(r: Reply | undefined): r is StreamReply {
  return r?.kind === 'sse' || r?.kind === 'events';
}

/** The same stream reply with its items passed through `wrap` (which yields each item as it comes). */
export function wrapStream(r: StreamReply, wrap: <T>(items: AsyncIterable<T>) => AsyncIterable<T>): StreamReply {
  return r.kind === 'sse' ? { ...r, chunks: wrap(r.chunks) } : { ...r, events: wrap(r.events) };
}
