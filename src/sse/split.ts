/**
 * Cuts a byte stream of server-sent events into runs of whole events, without parsing them: the
 * relay forwards each run as it is and parses only the runs it needs to look into (usage). A run
 * ends at a blank line; whatever follows the last blank line waits for the next chunk.
 */

export class SseEventSplitter {
  private readonly text = new TextDecoder('utf-8');
  private carry = '';

  /** The whole events this chunk completes (possibly several, possibly none: ''). */
  push(chunk: Uint8Array): string {
    const s = this.carry + this.text.decode(chunk, { stream: true });
    const end = lastEventEnd(s);
    if (end === 0) {
      this.carry = s;
      return '';
    }
    this.carry = s.slice(end);
    return end === s.length ? s : s.slice(0, end);
  }

  /** End of input: whatever is left (an unterminated last event). */
  end(): string {
    const rest = this.carry + this.text.decode();
    this.carry = '';
    return rest;
  }
}

/**
 * Index just past the last blank line in `s`, 0 when there is none. Line ends are LF, CRLF or
 * CR; a CR at the very end does not count yet (an LF may follow in the next chunk), and an LF
 * right after a CR-terminated blank line belongs to it, so a run never splits a CRLF.
 */
export function lastEventEnd(s: string): number {
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
      if (earlier !== -1 && earlier + 2 < s.length - 1) best = s.charCodeAt(earlier + 2) === 10 ? earlier + 3 : earlier + 2;
    }
  }
  return best;
}
