/**
 * Server-sent events decoding in layers: bytes → text (UTF-8, split code points kept whole)
 * → lines (LF, CR or CRLF, even when a CRLF is split across chunks) → events.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

import { StringDecoder } from 'node:string_decoder';

export interface SseMessage {
  /** `event:` field; undefined when absent (the spec's default type is "message"). */
  event?: string;
  /** `data:` lines joined with "\n". */
  data: string;
  id?: string;
}

/** Incremental decoder: push chunks, get the complete events they finish. */
export class SseDecoder {
  /** Cheaper per call than TextDecoder on small chunks; keeps split code points whole alike. */
  private readonly text = new StringDecoder('utf8');
  /** The start of a line whose end has not arrived, in pieces (a long line is joined once). */
  private partial: string[] = [];
  /** True when the previous chunk ended in CR, so a leading LF is the rest of a CRLF. */
  private pendingCr = false;
  private first = true;
  private event: string | undefined;
  private data: string[] = [];
  private id: string | undefined;

  push(chunk: Uint8Array | string): SseMessage[] {
    let s = typeof chunk === 'string' ? chunk : this.text.write(chunk);
    if (this.first && s.length > 0) {
      // The spec ignores one byte-order mark at the start of the stream.
      this.first = false;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    if (this.pendingCr && s.startsWith('\n')) s = s.slice(1);
    this.pendingCr = false;
    const out: SseMessage[] = [];
    let start = 0;
    if (s.indexOf('\r') === -1) {
      // LF-only text (the usual case): lines found by the native search, not char by char.
      for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', start)) {
        this.line(this.takeLine(s.slice(start, i)), out);
        start = i + 1;
      }
      if (start < s.length) this.partial.push(s.slice(start));
      return out;
    }
    // Only the new text is scanned: what is kept of earlier chunks holds no line end.
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.takeLine(s.slice(start, i)), out);
      if (c === 13) {
        if (i + 1 < s.length) {
          if (s.charCodeAt(i + 1) === 10) i++;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
    }
    if (start < s.length) this.partial.push(s.slice(start));
    return out;
  }

  /** End of input: an unterminated final event is dispatched, as browsers do not, but SDKs do. */
  end(): SseMessage[] {
    const out: SseMessage[] = [];
    const rest = this.text.end();
    if (rest) this.partial.push(rest);
    if (this.partial.length > 0) this.line(this.takeLine(''), out);
    this.line('', out);
    return out;
  }

  /** A line's start kept from earlier chunks, joined once with its end. */
  private takeLine(end: string): string {
    if (this.partial.length === 0) return end;
    this.partial.push(end);
    const line = this.partial.join('');
    this.partial = [];
    return line;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line.length === 0) {
      if (this.data.length > 0 || this.event !== undefined) {
        out.push({ event: this.event, data: this.data.join('\n'), id: this.id });
      }
      this.event = undefined;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    // `retry` and unknown fields are ignored, per the spec.
  }
}

/**
 * Decode an async byte stream (e.g. an undici body) into SSE messages. A plain iterator, not an
 * async generator: the events of one read are handed out from a queue, each `next()` one settled
 * promise, instead of a generator suspended and resumed (several promises) per event.
 */
export function decodeSse(chunks: AsyncIterable<Uint8Array | string>): AsyncIterable<SseMessage> {
  return { [Symbol.asyncIterator]: () => new SseMessages(chunks[Symbol.asyncIterator]()) };
}

class SseMessages implements AsyncIterator<SseMessage> {
  private readonly decoder = new SseDecoder();
  private queue: SseMessage[] = [];
  private at = 0;
  private ended = false;

  constructor(private readonly source: AsyncIterator<Uint8Array | string>) {}

  next(): Promise<IteratorResult<SseMessage>> {
    if (this.at < this.queue.length) return Promise.resolve({ done: false, value: this.queue[this.at++] });
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return this.read();
  }

  /** Reads until a chunk completes an event, or the source ends (its unterminated last event included). */
  private async read(): Promise<IteratorResult<SseMessage>> {
    for (;;) {
      const r = await this.source.next();
      this.at = 0;
      if (r.done) {
        this.ended = true;
        this.queue = this.decoder.end();
      } else {
        this.queue = this.decoder.push(r.value);
      }
      if (this.queue.length > 0) return { done: false, value: this.queue[this.at++] };
      if (this.ended) return { done: true, value: undefined };
    }
  }

  /** The consumer stops early: the source is closed (the upstream call ends). */
  async return(): Promise<IteratorResult<SseMessage>> {
    const open = !this.ended;
    this.ended = true;
    this.queue = [];
    this.at = 0;
    if (open) await this.source.return?.();
    return { done: true, value: undefined };
  }
}
