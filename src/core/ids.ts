import { randomFillSync } from 'node:crypto';

/**
 * ULIDs (https://github.com/ulid/spec), monotonic within a millisecond, made here rather than by
 * the `ulid` package: its monotonic factory increments the random part as a string, one character
 * replaced at a time, which was a measurable share of a request's CPU. Here the time part is
 * encoded once per millisecond, the random part is kept as 16 base-32 digits (5 bits each, drawn
 * from the CSPRNG 4 KiB at a time) and incremented in place, and the id is joined from two-digit
 * pieces. Same spec, same order: ids sort by time, and by creation within one millisecond.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Every pair of base-32 digits as its two characters, indexed by `hi * 32 + lo`. */
const PAIRS = Array.from({ length: 1024 }, (_, i) => CROCKFORD[i >> 5] + CROCKFORD[i & 31]);
/** The largest time a ULID holds (48 bits of milliseconds). */
const MAX_TIME = 2 ** 48 - 1;

const pool = new Uint8Array(4096);
let next = pool.length;
const digits = new Uint8Array(16);
let lastMs = -1;
let timePart = '';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function drawDigits(): void {
  if (next + 16 > pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  // 256 is a multiple of 32: each byte's low 5 bits are uniform.
  for (let i = 0; i < 16; i++) digits[i] = pool[next++] & 31;
}

/** Adds one to the random part; false when it wrapped around (all 80 bits were set). */
function increment(): boolean {
  for (let i = 15; i >= 0; i--) {
    if (digits[i] < 31) {
      digits[i]++;
      return true;
    }
    digits[i] = 0;
  }
  return false;
}

function nextUlid(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = Math.min(now, MAX_TIME);
    timePart = encodeTime(lastMs);
    drawDigits();
  } else if (!increment()) {
    // 2^80 ids in one millisecond (or a clock that went back that far): the next millisecond's
    // time keeps the order.
    lastMs = Math.min(lastMs + 1, MAX_TIME);
    timePart = encodeTime(lastMs);
    drawDigits();
  }
  const d = digits;
  return (
    timePart +
    PAIRS[(d[0] << 5) | d[1]] +
    PAIRS[(d[2] << 5) | d[3]] +
    PAIRS[(d[4] << 5) | d[5]] +
    PAIRS[(d[6] << 5) | d[7]] +
    PAIRS[(d[8] << 5) | d[9]] +
    PAIRS[(d[10] << 5) | d[11]] +
    PAIRS[(d[12] << 5) | d[13]] +
    PAIRS[(d[14] << 5) | d[15]]
  );
}

const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** A new ULID for X-Correlation-ID. */
export function newCorrelationId(): string {
  return nextUlid();
}

/** The caller's id is kept only when it is a well-formed ULID (it is echoed in headers and logs). */
export function acceptCorrelationId(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const upper = v.toUpperCase();
  return ULID_RE.test(upper) ? upper : undefined;
}

/** Short random id for generated completions / tool calls (mock provider, translation). */
export function randomId(prefix: string): string {
  return prefix + nextUlid().toLowerCase();
}
