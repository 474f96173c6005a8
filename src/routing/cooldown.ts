/**
 * Circuit breakers, one per key (a concrete model id, or `credential:<provider>`), in this
 * process. Closed: failures are counted over a sliding window; `failures` of them open the
 * circuit. Open: the target is skipped for `cooldownMs`. Then half-open: exactly one request
 * (the probe) is let through; its success closes the circuit, its failure opens it again.
 */

import type { CooldownPolicy } from '../config/types.js';

interface Circuit {
  /** Times of recent failures (closed state), oldest first. */
  failures: number[];
  /** Set while open (and half-open): when the cooldown ends. */
  openUntil?: number;
  probing: boolean;
}

export type Admission = 'yes' | 'probe' | 'no';

export class Breakers {
  private readonly circuits = new Map<string, Circuit>();

  constructor(private readonly now: () => number = Date.now) {}

  /** May a request go to this target now? `probe`: yes, as the single half-open probe. */
  admit(key: string): Admission {
    if (this.circuits.size === 0) return 'yes'; // nothing has failed lately: the usual case
    const c = this.circuits.get(key);
    if (!c || c.openUntil === undefined) return 'yes';
    if (this.now() < c.openUntil || c.probing) return 'no';
    c.probing = true;
    return 'probe';
  }

  success(key: string): void {
    if (this.circuits.size > 0) this.circuits.delete(key);
  }

  failure(key: string, policy: CooldownPolicy): void {
    const now = this.now();
    let c = this.circuits.get(key);
    if (!c) {
      c = { failures: [], probing: false };
      this.circuits.set(key, c);
    }
    if (c.openUntil !== undefined) {
      // A failed probe (or a straggler that started before the circuit opened): open again.
      c.openUntil = now + policy.cooldownMs;
      c.probing = false;
      return;
    }
    c.failures.push(now);
    while (c.failures.length > 0 && c.failures[0] <= now - policy.windowMs) c.failures.shift();
    if (c.failures.length >= policy.failures) {
      c.openUntil = now + policy.cooldownMs;
      c.failures = [];
    }
  }

  /** Opens the circuit at once (a credential the provider refused). */
  trip(key: string, policy: CooldownPolicy): void {
    this.circuits.set(key, { failures: [], openUntil: this.now() + policy.cooldownMs, probing: false });
  }

  /** A probe that ended without a verdict (the caller went away): let the next request probe. */
  release(key: string): void {
    const c = this.circuits.get(key);
    if (c) c.probing = false;
  }

  /** Milliseconds until the key may be tried again (0 when it may be now). */
  retryInMs(key: string): number {
    const until = this.circuits.get(key)?.openUntil;
    return until === undefined ? 0 : Math.max(0, until - this.now());
  }

  /** Keys whose circuit is open or half-open (for metrics and /ready). */
  cooling(): string[] {
    return [...this.circuits].filter(([, c]) => c.openUntil !== undefined).map(([k]) => k);
  }
}
