/**
 * Canonical blocks, which may interleave (an OpenAI chat upstream's parallel tool calls stay open
 * until the end), turned into one output block at a time for the formats whose streams allow no
 * interleaving (Anthropic content blocks, Responses output items).
 *
 * Blocks go out in the order they started: the head of the queue streams live, later ones buffer
 * until their turn, and the head advances when its canonical block_stop arrives. So that a block
 * left open does not hold everything behind it, an open text or reasoning block is closed early
 * as soon as another block starts; a late delta for it opens a continuation block of the same kind
 * at the back of the queue. A tool call is never closed early (its arguments cannot be split).
 * The encoder owns what a block carries and writes; this owns the order.
 */

import type { BlockDelta } from '../core/canonical.js';

export type BlockKind = 'text' | 'reasoning' | 'tool_call';

export interface QueuedBlock {
  canon: number;
  kind: BlockKind;
  /** No more deltas will come: canonical block_stop, closed early, or the message ended. */
  closed: boolean;
}

const ACCEPTS: Record<BlockKind, ReadonlyArray<BlockDelta['kind']>> = {
  text: ['text'],
  reasoning: ['reasoning', 'signature'],
  tool_call: ['tool_arguments'],
};

export class BlockQueue<B extends QueuedBlock> {
  /** Blocks not yet fully written, in emission order; the first is the one streaming. */
  readonly blocks: B[] = [];
  /** Canonical index → the block its deltas go to. */
  private readonly live = new Map<number, B>();
  /** Canonical indices closed early, whose late deltas open a continuation block. */
  private readonly retired = new Map<number, BlockKind>();

  /** `make`: a new, empty block of the encoder's own shape. */
  constructor(private readonly make: (canon: number, kind: BlockKind) => B) {}

  /** A canonical block_start: open text and reasoning blocks are closed early. */
  start(canon: number, kind: BlockKind): B {
    for (const b of this.blocks) if (!b.closed && b.kind !== 'tool_call') this.retire(b);
    this.retired.delete(canon);
    const reused = this.live.get(canon);
    if (reused) reused.closed = true; // an index started twice: the earlier block is over
    return this.open(canon, kind);
  }

  /** The block a delta belongs to: its live block, or a continuation of one closed early; mismatched kinds: none. */
  target(canon: number, delta: BlockDelta['kind']): B | undefined {
    let b = this.live.get(canon);
    if (!b) {
      const k = this.retired.get(canon);
      if (!k) return undefined;
      this.retired.delete(canon);
      b = this.open(canon, k);
    }
    return ACCEPTS[b.kind].includes(delta) ? b : undefined;
  }

  /** A canonical block_stop. */
  stop(canon: number): void {
    const b = this.live.get(canon);
    if (b) b.closed = true;
    this.live.delete(canon);
    this.retired.delete(canon);
  }

  /** The message ended: every block is complete. */
  closeAll(): void {
    for (const b of this.blocks) b.closed = true;
  }

  private open(canon: number, kind: BlockKind): B {
    const b = this.make(canon, kind);
    this.blocks.push(b);
    this.live.set(canon, b);
    return b;
  }

  private retire(b: B): void {
    b.closed = true;
    if (this.live.get(b.canon) === b) {
      this.live.delete(b.canon);
      this.retired.set(b.canon, b.kind);
    }
  }
}
