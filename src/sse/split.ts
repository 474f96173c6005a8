/**
 * Cuts a byte stream of server-sent events into runs of whole events, without parsing them: the
 * relay forwards each run as it is and parses only the runs it needs to look into (usage). A run
 * ends at a blank line; whatever follows the last blank line waits for the next chunk.
 */

import { StringDecoder } from 'node:string_decoder';

export class SseEventSplitter {
  // StringDecoder keeps a code point split across chunks whole, like TextDecoder, at a fraction
  // of its cost per call on small chunks.
  private readonly text = new StringDecoder('utf8');
  /** Text after the last whole event, in pieces: it holds no blank line that counts yet. */
  private carry: string[] = [];
  /** Its last characters: a blank line ending in the next chunk starts at most 3 before it. */
  private tail = '';

  /** The whole events this chunk completes (possibly several, possibly none: ''). */
  push(chunk: Uint8Array): string {
    const s = this.text.write(chunk);
    // Only the new text (and the carry's tail) is searched, so a long event costs one pass.
    const window = this.tail + s;
    const inWindow = lastEventEnd(window);
    if (inWindow === 0) {
      if (s) this.carry.push(s);
      this.tail = window.slice(-3);
      return '';
    }
    this.carry.push(s);
    const all = this.carry.join('');
    const end = all.length - window.length + inWindow;
    const rest = all.slice(end);
    this.carry = rest ? [rest] : [];
    this.tail = rest.slice(-3);
    return end === all.length ? all : all.slice(0, end);
  }

  /** End of input: whatever is left (an unterminated last event). */
  end(): string {
    const rest = this.carry.join('') + this.text.end();
    this.carry = [];
    this.tail = '';
    return rest;
  }
}

/**
 * Index just past the last blank line in `s`, 0 when there is none. Line ends are LF, CRLF or
 * CR; a CR at the very end does not count yet (an LF may follow in the next chunk), and an LF
 * right after a CR-terminated blank line belongs to it, so a run never splits a CRLF.
 */
export function lastEventEnd(s: string): number {
  // Most streams use LF only: one forward scan for a CR, then a backward search that stops at
  // once when the text ends with its blank line (as upstream writes usually do).
  if (s.indexOf('\r') === -1) {
    const end = s.lastIndexOf('\n\n');
    return end === -1 ? 0 : end + 2;
  }
  let best = 0;
  const lf = s.lastIndexOf('\n\n');
  if (lf !== -1) best = lf + 2;
  const crlf = s.lastIndexOf('\r\n\r\n');
  if (crlf !== -1 && crlf + 4 > best) best = crlf + 4;
  const mixed = s.lastIndexOf('\n\r\n');
  if (mixed !== -1 && mixed + 3 > best) best = mixed + 3;
  const cr = s.lastIndexOf('\r\r');
  if (cr !== -1 && cr + 2 > best) {
    const after = cr + 2;
    if (after < s.length) best = s.charCodeAt(after) === 10 ? after + 1 : after;
    else if (best === 0) {
      // "\r\r" at the very end: an earlier CR-CR blank line may still be final.
      const earlier = s.lastIndexOf('\r\r', cr - 1);
      if (earlier !== -1 && earlier + 2 < s.length - 1)
        best = s.charCodeAt(earlier + 2) === 10 ? earlier + 3 : earlier + 2;
    }
  }
  return best;
}
