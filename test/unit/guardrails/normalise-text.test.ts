import { describe, expect, it } from 'vitest';
import { mapNormalised, normalisedForMatching, originalRange } from '../../../src/guardrails/normalise-text.js';
import { patternRules } from '../../../src/guardrails/rules.js';
import { scanCompleteText, scanText } from '../../../src/guardrails/scan.js';
import { compile, detectors, guardrail, keywords, regex } from './rule-configs.js';

const rules = (...g: Parameters<typeof compile>) => patternRules(compile(...g));

/** The original text a match of `word` in the normalised copy covers. */
function coveredBy(original: string, word: string): string {
  const m = mapNormalised(original);
  const at = m.text.indexOf(word);
  expect(at, `"${word}" in ${JSON.stringify(m.text)}`).toBeGreaterThanOrEqual(0);
  const r = originalRange(m, at, at + word.length);
  return original.slice(r.start, r.end);
}

describe('normalisedForMatching', () => {
  it('leaves ASCII and already-normal text alone (undefined: match on the text itself)', () => {
    expect(normalisedForMatching('plain password 123')).toBeUndefined();
    expect(normalisedForMatching('')).toBeUndefined();
    expect(normalisedForMatching('café 東京 😀')).toBeUndefined();
  });
  it('removes zero-width characters, joiners, soft hyphens, word joiners and BOMs', () => {
    expect(normalisedForMatching('pass\u200Bword')).toBe('password');
    expect(normalisedForMatching('pa\u200Css\u200Dwo\u2060rd\uFEFF')).toBe('password');
    expect(normalisedForMatching('pass\u00ADword')).toBe('password');
  });
  it('folds compatibility forms: fullwidth letters and digits, ligatures, decomposed accents', () => {
    expect(normalisedForMatching('ｐａｓｓｗｏｒｄ ４１１１')).toBe('password 4111');
    expect(normalisedForMatching('\uFB01le')).toBe('file');
    expect(normalisedForMatching('cafe\u0301')).toBe('café');
  });
});

describe('mapNormalised', () => {
  it('gives the same text as normalisedForMatching', () => {
    for (const t of [
      'pass\u200Bword',
      'ｐａｓｓｗｏｒｄ',
      'cafe\u0301 ok',
      '\uFB01le',
      'x\u0301\u0302y',
      '\u1112\u1161\u11ab 한',
      '😀\uFE0F ok',
      'a\u0301\u200Bb',
    ]) {
      expect(mapNormalised(t).text).toBe(normalisedForMatching(t) ?? t);
    }
  });
  it('maps a match back to the original characters it came from, invisible ones inside included', () => {
    expect(coveredBy('my pass\u200Bword here', 'password')).toBe('pass\u200Bword');
    expect(coveredBy('my ｐａｓｓｗｏｒｄ here', 'password')).toBe('ｐａｓｓｗｏｒｄ');
    expect(coveredBy('a pass\u00ADword', 'password')).toBe('pass\u00ADword');
    expect(coveredBy('x cafe\u0301 y', 'café')).toBe('cafe\u0301');
  });
  it('covers a whole character when the match ends inside what it expanded to', () => {
    // U+FB01 "ﬁ" becomes "fi": a match of "f" alone still covers the ligature.
    expect(coveredBy('a \uFB01 b', 'f')).toBe('\uFB01');
  });
  it('maps ASCII one to one around non-ASCII text', () => {
    const t = 'abc ｘ def';
    const m = mapNormalised(t);
    expect(m.text).toBe('abc x def');
    expect(coveredBy(t, 'def')).toBe('def');
    expect(coveredBy(t, 'c x d')).toBe('c ｘ d');
  });
  it('is linear: doubling the input does not quadruple the time', () => {
    const unit = 'ｐａｓｓ\u200Bword café\u0301 ';
    const time = (n: number) => {
      const t = unit.repeat(n);
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) mapNormalised(t);
      return performance.now() - t0;
    };
    time(1000);
    const small = time(10_000);
    const big = time(20_000);
    expect(big).toBeLessThan(3.2 * small + 50);
  });
});

describe('pattern rules match on the normalised copy', () => {
  const bird = rules(guardrail('bird', keywords(['bluebird']), 'redact'));

  it('a disguised keyword is found and redacted in the original text, the rest untouched', () => {
    for (const disguised of ['blue\u200Bbird', 'blue\u00ADbird', 'ｂｌｕｅｂｉｒｄ', 'BLUE\u2060BIRD']) {
      const r = scanText(bird, `a ${disguised} and a wren\u200B!`);
      expect(r.text, disguised).toBe('a [REDACTED:keyword] and a wren\u200B!');
      expect(r.hits).toEqual([{ guardrailId: 'bird', action: 'redact', label: 'keyword' }]);
    }
  });
  it('detectors and regexes see fullwidth digits and split secrets too; blocks are reported', () => {
    const r = scanText(
      rules(guardrail('cc', detectors('credit_card'), 'block')),
      'card ４１１１ １１１１ １１１１ １１１１',
    );
    expect(r.blockedBy).toBe('cc');
    expect(
      scanText(rules(guardrail('aws', detectors('aws_access_key'), 'redact')), 'key AKIA\u200BIOSFODNN7EXAMPLE.').text,
    ).toBe('key [REDACTED:aws_access_key].');
    expect(scanText(rules(guardrail('re', regex('TCK-[0-9]{6}'), 'redact')), 'see ＴＣＫ－１２３４５６ now').text).toBe(
      'see [REDACTED:regex] now',
    );
  });
  it('keywords written in compatibility forms in the config match their plain forms', () => {
    expect(scanText(rules(guardrail('lig', keywords(['\uFB01le']), 'redact')), 'the file').text).toBe(
      'the [REDACTED:keyword]',
    );
  });
  it('inside JSON (tool-call arguments) the redaction keeps the JSON valid', () => {
    const r = scanCompleteText(bird, '{"q":"a blue\u200Bbird","n":1}', 'json');
    expect(JSON.parse(r.text)).toEqual({ q: 'a [REDACTED:keyword]', n: 1 });
  });
  it('plain text that only looks similar is not matched', () => {
    expect(scanText(bird, 'blue bird, blue-bird, bluebirds').hits).toEqual([]);
  });
  it('is linear in the text when it matches: doubling the input does not quadruple the time', () => {
    const unit = 'a ｂｌｕｅ\u200Bｂｉｒｄ sat on café\u0301 ';
    const time = (n: number) => {
      const t = unit.repeat(n);
      const t0 = performance.now();
      for (let i = 0; i < 3; i++) scanText(bird, t);
      return performance.now() - t0;
    };
    time(500);
    const small = time(5000);
    const big = time(10_000);
    expect(big).toBeLessThan(3.2 * small + 50);
  });
});
