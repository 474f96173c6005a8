import { createHash, timingSafeEqual } from 'node:crypto';

/** Constant-time comparison of a presented secret with the expected one (digests, so lengths never leak). */
export function sameSecret(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
