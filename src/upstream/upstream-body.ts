/**
 * The body of a provider's answer, fed by the dispatch handler (client.ts) chunk by chunk: read
 * whole (`bytes`, `text`), iterated (streams), or dropped (`dump`). undici's own Readable body
 * cost a stream object, its state machine and an AbortSignal per attempt; this costs an array.
 * Backpressure: while the reader is behind by more than HIGH_WATER bytes the upstream socket is
 * paused, and resumed once the reader has caught up.
 */

import type { Dispatcher } from 'undici';
import type { GatewayError } from '../core/errors.js';

const HIGH_WATER = 64 * 1024;
/** A JSON answer larger than this is refused (bytes/text): nothing a chat reply needs. */
export const MAX_WHOLE_BODY_BYTES = 64 * 1024 * 1024;
/** What dump() reads to keep the connection reusable before it gives up and aborts. */
const DUMP_LIMIT = 128 * 1024;

type Mode = 'unclaimed' | 'whole' | 'iterate' | 'dump';

export class UpstreamBody implements AsyncIterable<Buffer> {
  private chunks: Buffer[] = [];
  private queued = 0;
  private received = 0;
  private ended = false;
  private failure: unknown = undefined;
  private mode: Mode = 'unclaimed';
  /** The reader waiting for the next chunk, the end or an error. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly controller: Dispatcher.DispatchController,
    /** The error a too-large whole body is refused with. */
    private readonly tooLarge: () => GatewayError,
  ) {}

  /** Handler side: one chunk arrived. */
  push(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.mode === 'dump') {
      if (this.received > DUMP_LIMIT) this.controller.abort(new Error('response body dropped'));
      return;
    }
    if (this.mode === 'whole' && this.received > MAX_WHOLE_BODY_BYTES) {
      this.fail(this.tooLarge());
      this.controller.abort(this.failure as Error);
      return;
    }
    this.chunks.push(chunk);
    this.queued += chunk.length;
    if (this.mode === 'whole') return; // its reader waits for the end only
    if (this.queued > HIGH_WATER) this.controller.pause();
    this.notify();
  }

  /** Handler side: the body is complete. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** Handler side: the transfer failed (or was aborted) after the headers. */
  fail(err: unknown): void {
    if (this.ended || this.failure !== undefined) return;
    this.failure = err;
    this.chunks = [];
    this.queued = 0;
    this.notify();
  }

  /**
   * The whole body. Rejects with the transfer's error, or with what `failure` makes of it (one
   * promise, where a `.catch` to rename the error would add another per answer).
   */
  async bytes(failure: (err: unknown) => unknown = (err) => err): Promise<Buffer> {
    try {
      this.claim('whole');
      if (this.received > MAX_WHOLE_BODY_BYTES) {
        this.fail(this.tooLarge());
        this.controller.abort(this.failure as Error);
      }
      this.controller.resume();
      while (!this.ended && this.failure === undefined) await this.waitForChange();
      if (this.failure !== undefined) throw this.failure;
      const { chunks, queued } = this;
      this.chunks = [];
      this.queued = 0;
      return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, queued);
    } catch (err) {
      throw failure(err);
    }
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  /** Drops the body: read (bounded) so the connection can be reused, else the request aborted. */
  async dump(): Promise<void> {
    this.claim('dump');
    this.chunks = [];
    this.queued = 0;
    if (this.received > DUMP_LIMIT) this.controller.abort(new Error('response body dropped'));
    this.controller.resume();
    while (!this.ended && this.failure === undefined) await this.waitForChange();
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    this.claim('iterate');
    return {
      next: async (): Promise<IteratorResult<Buffer>> => {
        for (;;) {
          if (this.failure !== undefined) throw this.failure;
          const chunk = this.chunks.shift();
          if (chunk) {
            this.queued -= chunk.length;
            if (this.queued <= HIGH_WATER / 2 && this.controller.paused) this.controller.resume();
            return { value: chunk, done: false };
          }
          if (this.ended) return { value: undefined, done: true };
          if (this.controller.paused) this.controller.resume();
          await this.waitForChange();
        }
      },
      // The reader stopped early (client gone, or it saw all it needed): the transfer ends here.
      return: async (): Promise<IteratorResult<Buffer>> => {
        if (!this.ended && this.failure === undefined) {
          this.fail(new Error('response body no longer read'));
          this.controller.abort(new Error('response body no longer read'));
        }
        return { value: undefined, done: true };
      },
    };
  }

  private claim(mode: Mode): void {
    if (this.mode !== 'unclaimed') throw new Error(`the upstream body was already read (${this.mode})`);
    this.mode = mode;
  }

  private waitForChange(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
