/**
 * Output guardrails on a canonical event stream, applied as the text flows.
 *
 * Per content block, text (and tool-call argument JSON) is passed on as soon as no match can
 * still involve it: the guard holds back the last `maxSpan − 1` characters (the largest maxSpan
 * of the rules in force), so a secret split across deltas is still seen whole. Two refinements:
 * - a match that reaches past the cut, or ends within RIGHT_CONTEXT characters of the text
 *   received so far, might still grow or vanish (a private key body or bearer token still
 *   arriving, "secret" that turns into "secrets"): it is held from its start, and cannot block,
 *   until more text or the block's end decides;
 * - the guard never cuts inside a match, inside a JSON escape or number, or between the two halves
 *   of a surrogate pair.
 * The last STREAM_CONTEXT characters already sent stay available as left context, so lookbehinds
 * and the `Bearer ` prefix still work across the cut.
 *
 * Cost stays linear in the stream: a delta normally rescans only the hold-back and itself. When a
 * match still growing holds more than that (a 200 KB token arriving in small deltas), the held text
 * is rescanned only once the text received since the last scan is at least half the excess
 * (rescanWorthIt); until then new text simply joins the held text, which is always safe, and the
 * held text grows geometrically between scans. The price: after a very long held match, the text
 * that follows it waits for that rescan (or the block's end).
 *
 * Redactions replace the match with `[REDACTED:<label>]` in the re-emitted delta (same index and
 * kind). A block stops the stream: a final `error` event names the guardrail (never the text) and
 * the upstream is closed. Held text is flushed at the block's `block_stop`, before
 * `message_stop` or an upstream `error`, and when the source ends. Other events (message_start,
 * block_start, reasoning and signature deltas, block_stop, message_stop) pass in order, each after
 * everything its block emitted before it. Reasoning is not scanned (see content-texts.ts).
 *
 * Webhook rules are not applied to streams: they need the complete text, and by the end of a
 * stream it has been sent. Output webhooks run on complete responses (response.ts). When
 * hasOutputWebhook() is true for a streaming request, the integrator should fold the stream,
 * run checkOutput, and replay it with responseAsEvents.
 */

import type { BlockStart, ChatResponse, StreamEvent } from '../core/canonical.js';
import { guardrailBlockedError, type ScanHit } from './hits.js';
import { isSafeJsonCut, JSON_START, lexJson, redactJson, type JsonLex, type JsonLexState } from './json-text.js';
import { type CompiledGuardrail, type GuardrailScope, guardrailSelection, type PatternGuardrail } from './rules.js';
import { findMatches, firstBlock, hitsOf, placeholder, redactionSpans, redactPlain, type RuleMatch } from './scan.js';

/** Characters already sent that are kept as left context for the next scan. */
export const STREAM_CONTEXT = 64;
/** Characters a match needs after it before it counts as complete (detectors look ahead ≤ 2). */
export const RIGHT_CONTEXT = 4;

export type HitListener = (hit: ScanHit) => void;

type GuardedKind = 'text' | 'tool_arguments';

interface BlockState {
  kind: GuardedKind;
  /** Received, not yet sent (raw). */
  pending: string;
  /** The tail of what was sent, as scanned (JSON: with escapes blanked). */
  context: string;
  /** JSON lexer state at the start of `pending`. */
  lex: JsonLexState;
  /** `pending.length` right after the last scan: what that scan held back. */
  held: number;
}

type Step = { emit: string } | { blocked: string };

/**
 * `rules`: every compiled guardrail; the output pattern rules matching `scope` are applied (none:
 * the events are returned as they are). `onHit` is called once per distinct (rule, action, label).
 */
export function guardStream(
  events: AsyncIterable<StreamEvent>,
  rules: readonly CompiledGuardrail[],
  scope: GuardrailScope,
  onHit: HitListener,
): AsyncIterable<StreamEvent> {
  const active = guardrailSelection(rules, 'output', scope).patterns;
  if (active.length === 0) return events;
  return new StreamGuard(active, onHit).run(events);
}

/** True when an output webhook applies: a stream must then be buffered to be checked. */
export function hasOutputWebhook(rules: readonly CompiledGuardrail[], scope: GuardrailScope): boolean {
  return guardrailSelection(rules, 'output', scope).webhooks.length > 0;
}

class StreamGuard {
  private readonly hold: number;
  private readonly blocks = new Map<number, BlockState>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly rules: readonly PatternGuardrail[],
    private readonly onHit: HitListener,
  ) {
    this.hold = Math.max(1, ...rules.map((r) => r.maxSpan)) - 1;
  }

  async *run(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
    for await (const ev of events) {
      const out: StreamEvent[] = [];
      let stop = false;
      switch (ev.type) {
        case 'block_delta': {
          const d = ev.delta;
          if (d.kind !== 'text' && d.kind !== 'tool_arguments') {
            out.push(ev);
            break;
          }
          let b = this.blocks.get(ev.index);
          if (b && b.kind !== d.kind) stop = this.flush(ev.index, out);
          if (stop) break;
          if (!b || b.kind !== d.kind) {
            b = { kind: d.kind, pending: '', context: '', lex: JSON_START, held: 0 };
            this.blocks.set(ev.index, b);
          }
          b.pending += d.kind === 'text' ? d.text : d.json;
          if (this.rescanWorthIt(b)) stop = this.emit(ev.index, b, this.step(b, false), out);
          break;
        }
        case 'block_stop':
          stop = this.flush(ev.index, out);
          if (!stop) out.push(ev);
          break;
        case 'message_stop':
        case 'error':
          stop = this.flushAll(out);
          if (!stop) out.push(ev);
          break;
        default:
          out.push(ev);
      }
      yield* out;
      // Returning closes the source (for await calls its return()), so the upstream stops too.
      if (stop) return;
    }
    const out: StreamEvent[] = [];
    this.flushAll(out);
    yield* out;
  }

  /** Sends what `step` released; true when it blocked (an error event is queued). */
  private emit(index: number, b: BlockState, step: Step, out: StreamEvent[]): boolean {
    if ('blocked' in step) {
      out.push({ type: 'error', error: guardrailBlockedError(step.blocked, 'output') });
      return true;
    }
    if (step.emit.length > 0) {
      out.push({
        type: 'block_delta',
        index,
        delta: b.kind === 'text' ? { kind: 'text', text: step.emit } : { kind: 'tool_arguments', json: step.emit },
      });
    }
    return false;
  }

  private flush(index: number, out: StreamEvent[]): boolean {
    const b = this.blocks.get(index);
    if (!b) return false;
    this.blocks.delete(index);
    return this.emit(index, b, this.step(b, true), out);
  }

  private flushAll(out: StreamEvent[]): boolean {
    for (const index of [...this.blocks.keys()].sort((x, y) => x - y)) if (this.flush(index, out)) return true;
    return false;
  }

  /**
   * Whether to scan now: always when the last scan held no more than the hold-back; otherwise once
   * the text received since is at least half of the excess, so a scan of n held characters is paid
   * for by about n/3 new ones (amortised linear).
   */
  private rescanWorthIt(b: BlockState): boolean {
    const excess = b.held - this.hold;
    return excess <= 0 || 2 * (b.pending.length - b.held) >= excess;
  }

  /** Scans what is pending (with left context) and releases the part no future text can change. */
  private step(b: BlockState, final: boolean): Step {
    if (b.pending.length === 0) return { emit: '' };
    const lex = b.kind === 'tool_arguments' ? lexJson(b.pending, b.lex) : undefined;
    const base = b.context.length;
    const view = b.context + (lex ? lex.view : b.pending);
    const len = view.length;
    // Matches wholly in the context were dealt with; one reaching back into it is cut at its edge.
    const matches = findMatches(this.rules, view)
      .filter((m) => m.end > base)
      .map((m) => (m.start < base ? { ...m, start: base } : m));
    const tentative = (m: RuleMatch): boolean => !final && m.end + RIGHT_CONTEXT > len;

    const block = firstBlock(matches.filter((m) => !tentative(m)));
    if (block) {
      this.report([block]);
      return { blocked: block.guardrailId };
    }

    const cut = final ? len : this.cutPoint(view, base, matches, tentative, lex);
    const rel = cut - base;
    const committed = matches.filter((m) => m.start < cut);
    const raw = b.pending.slice(0, rel);
    const spans = redactionSpans(committed).map((s) => ({ ...s, start: s.start - base, end: s.end - base }));
    const emit =
      spans.length === 0
        ? raw
        : lex
          ? redactJson(raw, lex.classes.subarray(0, rel), spans, placeholder)
          : redactPlain(raw, spans);
    this.report(committed);

    b.context = (b.context + view.slice(base, cut)).slice(-STREAM_CONTEXT);
    if (lex) b.lex = rel === b.pending.length ? lex.end : lexJson(raw, b.lex).end;
    b.pending = b.pending.slice(rel);
    b.held = b.pending.length;
    return { emit };
  }

  /** The furthest safe point: hold-back, then back off until nothing undecided is split. */
  private cutPoint(
    view: string,
    base: number,
    matches: readonly RuleMatch[],
    tentative: (m: RuleMatch) => boolean,
    lex: JsonLex | undefined,
  ): number {
    let cut = Math.max(base, view.length - this.hold);
    for (;;) {
      let next = cut;
      for (const m of matches) if (m.start < next && (tentative(m) || m.end > next)) next = m.start;
      if (lex) while (next > base && !isSafeJsonCut(lex, next - base)) next--;
      if (next > base && isHighSurrogate(view.charCodeAt(next - 1))) next--;
      if (next === cut) return cut;
      cut = next;
    }
  }

  private report(matches: readonly RuleMatch[]): void {
    for (const h of hitsOf(matches)) {
      const key = `${h.guardrailId}\u0000${h.action}\u0000${h.label}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.onHit(h);
    }
  }
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** A complete response as a canonical stream (to replay a buffered, checked stream). */
export async function* responseAsEvents(res: ChatResponse): AsyncGenerator<StreamEvent> {
  yield {
    type: 'message_start',
    id: res.id,
    model: res.model,
    created: res.created,
    usage: { inputTokens: res.usage.inputTokens },
  };
  let index = 0;
  for (const part of res.content) {
    let block: BlockStart;
    const deltas: StreamEvent[] = [];
    if (part.type === 'text') {
      block = { kind: 'text' };
      if (part.text) deltas.push({ type: 'block_delta', index, delta: { kind: 'text', text: part.text } });
    } else if (part.type === 'reasoning') {
      block = { kind: 'reasoning' };
      if (part.text) deltas.push({ type: 'block_delta', index, delta: { kind: 'reasoning', text: part.text } });
      if (part.signature)
        deltas.push({ type: 'block_delta', index, delta: { kind: 'signature', signature: part.signature } });
    } else if (part.type === 'tool_call') {
      block = { kind: 'tool_call', id: part.id, name: part.name };
      if (part.arguments)
        deltas.push({ type: 'block_delta', index, delta: { kind: 'tool_arguments', json: part.arguments } });
    } else continue;
    yield { type: 'block_start', index, block };
    yield* deltas;
    yield { type: 'block_stop', index };
    index++;
  }
  yield {
    type: 'message_stop',
    finish: res.finish,
    ...(res.stopSequence !== undefined ? { stopSequence: res.stopSequence } : {}),
    usage: res.usage,
  };
}
