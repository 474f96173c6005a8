/**
 * Built-in detectors of personal data and secrets. Each returns the spans it found (never the
 * text) and declares `maxSpan`, which the stream guard uses to hold back just enough text.
 *
 * `maxSpan` is the longest text a detector must see to decide a match that does not run to the end
 * of the text. For most detectors that is their longest match. Two can grow without bound
 * (`bearer_token` tokens, `private_key` bodies); for them it is the length needed to recognise the
 * start, and a match that reaches the end of the text seen so far is held by the stream guard until
 * more text shows where it ends (see stream.ts).
 *
 * Rules chosen (each is documented at its detector):
 * - email: local part ≤ 64 chars, domain ≤ 120 chars with a 2–24 letter TLD; skipped inside URLs.
 * - phone: an international `+CC` number (8–15 digits), a North-American number with separators,
 *   or a national number with a trunk `0` and separators (9–11 digits). Bare digit runs (order ids,
 *   timestamps) never match without a `+`.
 * - credit_card: 13–19 digits with a card-network prefix, one consistent optional separator,
 *   Luhn-valid.
 * - iban: a known country code, its registry length, optional single spaces, mod-97 valid.
 * - aws_access_key: AKIA/ASIA + 16 upper-case letters or digits.
 * - private_key: a PEM/OpenSSH/PGP BEGIN…PRIVATE KEY line through the END line, or (unterminated)
 *   through the key material that follows it.
 * - bearer_token: the token after `Bearer ` (≥ 16 token68 characters); the scheme word is kept.
 */

import { awsAccessKey, bearerToken, privateKey } from './credential-detectors.js';
import type { Detector, DetectorName } from './detector-types.js';
import { creditCard, email, iban, phone } from './pii-detectors.js';

export { DETECTOR_NAMES, type Detector, type DetectorName, isDetectorName, type Span } from './detector-types.js';
export { ibanValid, luhnValid } from './pii-detectors.js';

export const DETECTORS: Readonly<Record<DetectorName, Detector>> = {
  email,
  phone,
  credit_card: creditCard,
  iban,
  aws_access_key: awsAccessKey,
  private_key: privateKey,
  bearer_token: bearerToken,
};
