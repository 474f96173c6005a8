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

/** Decode an async byte stream (e.g. an undici body) into SSE messages. */
export async function* decodeSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  const decoder = new SseDecoder();
  for await (const chunk of chunks) {
    for (const msg of decoder.push(chunk)) yield msg;
  }
  for (const msg of decoder.end()) yield msg;
}
