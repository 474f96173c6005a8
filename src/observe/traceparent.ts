/**
 * The caller's W3C `traceparent` header. Parsed here rather than with the SDK's propagator: the
 * header is the only trace context the gateway reads, and a malformed one must simply start a
 * new trace.
 */

export interface TraceParent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** Parses a W3C traceparent header; undefined when it is missing or malformed. */
export function parseTraceparent(header: string | undefined): TraceParent | undefined {
  if (typeof header !== 'string' || header.length > 512) return undefined;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff') return undefined;
  // Version 00 has exactly four fields; later versions may append more (forward compatible).
  if (version === '00' && rest !== undefined) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}
