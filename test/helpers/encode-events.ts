import type { StreamEvent } from '../../src/core/canonical.js';
import type { StreamEncoder } from '../../src/formats/types.js';

/**
 * A caller's stream encoder driven as the render stage drives it: each event's text as it comes
 * ('' skipped), nothing read after the encoder is done, and its early-end error when the events
 * run out first. For tests that look at the text an event stream makes.
 */
export async function* encodeEvents(enc: StreamEncoder, events: Iterable<StreamEvent> | AsyncIterable<StreamEvent>) {
  for await (const ev of events) {
    const out = enc.push(ev);
    if (out) yield out;
    if (enc.done) return;
  }
  const tail = enc.endedEarly();
  if (tail) yield tail;
}
