import { describe, expect, it } from 'vitest';
import { DETECTORS, ibanValid, luhnValid, type DetectorName } from '../../../src/guardrails/detectors.js';

/** The texts a detector found (tests may show them; the gateway never does). */
const found = (name: DetectorName, text: string): string[] =>
  DETECTORS[name].find(text).map((s) => text.slice(s.start, s.end));

describe('every detector', () => {
  it('never reports a match longer than its maxSpan, except the two that can grow', () => {
    const samples: Record<DetectorName, string> = {
      email: `mail ${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(50)}.com now`,
      phone: 'call +44 (0)20 7946 0958 or 415-555-0100 or 020 7946 0958',
      credit_card: 'card 3782 822463 10005 or 4111-1111-1111-1111',
      iban: 'iban LC55 HEMM 0001 0001 0012 0012 0002 3015 ok',
      aws_access_key: 'AKIAIOSFODNN7EXAMPLE',
      private_key: '-----BEGIN ENCRYPTED PRIVATE KEY-----',
      bearer_token: 'Bearer abcdefghijklmnop',
    };
    for (const [name, text] of Object.entries(samples) as Array<[DetectorName, string]>) {
      const d = DETECTORS[name];
      const spans = d.find(text);
      expect(spans.length, name).toBeGreaterThan(0);
      for (const s of spans) expect(s.end - s.start, name).toBeLessThanOrEqual(d.maxSpan);
    }
  });
});

describe('email', () => {
  it('finds plain addresses, subaddresses, subdomains and mailto', () => {
    expect(found('email', 'write to jane.doe+news@mail.example.co.uk, or ops@corp.io.')).toEqual([
      'jane.doe+news@mail.example.co.uk',
      'ops@corp.io',
    ]);
    expect(found('email', 'mailto:bob_smith@example.org')).toEqual(['bob_smith@example.org']);
    expect(found('email', '<alice@example.com>')).toEqual(['alice@example.com']);
  });
  it('ignores addresses inside URLs, handles and things without a real TLD', () => {
    expect(found('email', 'https://user:pass@host.example.com/path')).toEqual([]);
    expect(found('email', 'see https://example.com/@alice/post and ftp://anon@files.example.net')).toEqual([]);
    expect(found('email', '@alice said hi; a@b.c; root@localhost; x@1.2.3.4; me@example.c0m')).toEqual([]);
  });
  it('does not glue on a JSON-escape letter when escapes are blanked (json view)', () => {
    expect(found('email', 'x  bob@example.com')).toEqual(['bob@example.com']);
  });
});

describe('phone', () => {
  it('finds international numbers with or without separators', () => {
    expect(found('phone', 'Call +1 (415) 555-0100 or +44 20 7946 0958.')).toEqual([
      '+1 (415) 555-0100',
      '+44 20 7946 0958',
    ]);
    expect(found('phone', 'tel:+14155550100, +33 6 12 34 56 78, +44 (0)20 7946 0958')).toEqual([
      '+14155550100',
      '+33 6 12 34 56 78',
      '+44 (0)20 7946 0958',
    ]);
    expect(found('phone', 'call +49 30 1234567 please, or +49 30 12345678')).toEqual([
      '+49 30 1234567',
      '+49 30 12345678',
    ]);
  });
  it('finds North-American and trunk-prefixed national numbers with separators', () => {
    expect(found('phone', 'office (415) 555-0100, cell 415.555.0199, fax 1-800-555-0199')).toEqual([
      '(415) 555-0100',
      '415.555.0199',
      '1-800-555-0199',
    ]);
    expect(found('phone', 'London 020 7946 0958, Paris 06 12 34 56 78, Berlin (030) 1234567')).toEqual([
      '020 7946 0958',
      '06 12 34 56 78',
      '(030) 1234567',
    ]);
  });
  it('ignores bare digit runs, dates, times, IPs, versions, prices and mixed separators', () => {
    const text = [
      'order 4155550100',
      'ts 1699999999',
      'id 20240115093000',
      'on 2024-01-15 at 10:30',
      'host 192.168.100.200',
      'v1.22.333',
      'total 1 234 567',
      'mixed 020 7946-0958',
      'ref 123-456-7890',
      'math 3+5=8',
      'x+14155550100',
      'short +12 34',
      'too long +1 415 555 0100 1234 5678',
    ].join('; ');
    expect(found('phone', text)).toEqual([]);
  });
  it('does not take the tail of a longer number', () => {
    expect(found('phone', '4111 1111 415 555 0100 22')).toEqual([]);
  });
});

describe('credit_card', () => {
  it('finds Luhn-valid numbers with spaces, dashes or nothing', () => {
    expect(found('credit_card', 'visa 4111 1111 1111 1111, mc 5500-0000-0000-0004, amex 378282246310005.')).toEqual([
      '4111 1111 1111 1111',
      '5500-0000-0000-0004',
      '378282246310005',
    ]);
    expect(found('credit_card', 'discover 6011111111111117 and 2-series 2221000000000009')).toEqual([
      '6011111111111117',
      '2221000000000009',
    ]);
  });
  it('ignores Luhn-invalid numbers, non-card prefixes, mixed separators and longer runs', () => {
    expect(found('credit_card', '4111 1111 1111 1112')).toEqual([]);
    // Luhn-valid, but an epoch-ms timestamp and a YYYYMMDDhhmmss stamp.
    expect(found('credit_card', 'at 1700000000004 / 20240115093005')).toEqual([]);
    expect(found('credit_card', '4111 1111-1111 1111')).toEqual([]);
    expect(found('credit_card', '41111111111111110000 and 4111 1111 1111 1111 1111 1111')).toEqual([]);
    expect(found('credit_card', 'x4111111111111111 4111111111111111y')).toEqual([]);
  });
  it('checks Luhn', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnValid('')).toBe(false);
  });
});

describe('iban', () => {
  it('finds mod-97-valid IBANs, grouped, compact or lower case', () => {
    expect(found('iban', 'pay DE89 3704 0044 0532 0130 00 now')).toEqual(['DE89 3704 0044 0532 0130 00']);
    expect(found('iban', 'GB82WEST12345698765432, fr14 2004 1010 0505 0001 3m02 606.')).toEqual([
      'GB82WEST12345698765432',
      'fr14 2004 1010 0505 0001 3m02 606',
    ]);
    expect(found('iban', 'NO93 8601 1117 947 and CH93 0076 2011 6238 5295 7 and BE68539007547034')).toEqual([
      'NO93 8601 1117 947',
      'CH93 0076 2011 6238 5295 7',
      'BE68539007547034',
    ]);
  });
  it('ignores wrong check digits, wrong lengths, unknown countries and glued text', () => {
    expect(found('iban', 'DE88 3704 0044 0532 0130 00')).toEqual([]);
    expect(found('iban', 'DE89 3704 0044 0532 0130 0')).toEqual([]);
    expect(found('iban', 'DE89370400440532013000X')).toEqual([]);
    expect(found('iban', 'US12 3456 7890 1234 5678 90')).toEqual([]);
    expect(found('iban', 'XDE89370400440532013000')).toEqual([]);
  });
  it('validates compact IBANs', () => {
    expect(ibanValid('NL91ABNA0417164300')).toBe(true);
    expect(ibanValid('NL91ABNA0417164301')).toBe(false);
    expect(ibanValid('ZZ91ABNA0417164300')).toBe(false);
  });
});

describe('aws_access_key', () => {
  it('finds AKIA and ASIA key ids', () => {
    expect(found('aws_access_key', 'id=AKIAIOSFODNN7EXAMPLE and "ASIAY34FZKBOKMUTVV7A"')).toEqual([
      'AKIAIOSFODNN7EXAMPLE',
      'ASIAY34FZKBOKMUTVV7A',
    ]);
  });
  it('ignores other prefixes, wrong lengths, lower case and glued text', () => {
    expect(
      found(
        'aws_access_key',
        'AIDAIOSFODNN7EXAMPLE AKIAIOSFODNN7EXAMPL AKIAIOSFODNN7EXAMPLE1 akiaiosfodnn7example xAKIAIOSFODNN7EXAMPLE',
      ),
    ).toEqual([]);
  });
});

describe('private_key', () => {
  const body =
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n' +
    'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n' +
    'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ\n';
  const pem = `-----BEGIN PRIVATE KEY-----\n${body}-----END PRIVATE KEY-----`;

  it('finds a whole BEGIN…END block, whatever its label', () => {
    expect(found('private_key', `key:\n${pem}\nthanks`)).toEqual([pem]);
    const rsa = pem.replace(/PRIVATE KEY/g, 'RSA PRIVATE KEY');
    expect(found('private_key', rsa)).toEqual([rsa]);
    const ssh = pem.replace(/PRIVATE KEY/g, 'OPENSSH PRIVATE KEY');
    expect(found('private_key', ssh)).toEqual([ssh]);
  });
  it('finds a key flattened to one line or with JSON escapes blanked', () => {
    const flat = pem.replace(/\n/g, ' ');
    expect(found('private_key', `{"k": "${flat}"}`)).toEqual([flat]);
  });
  it('an unterminated key: the BEGIN line and the key material after it', () => {
    expect(found('private_key', `here: -----BEGIN RSA PRIVATE KEY-----`)).toEqual(['-----BEGIN RSA PRIVATE KEY-----']);
    const truncated = `-----BEGIN PRIVATE KEY-----\n${body}`;
    expect(found('private_key', truncated)).toEqual([truncated]);
    // Prose after the key material ends it.
    const text = `-----BEGIN PRIVATE KEY-----\n${body}\nThat is all I have.`;
    expect(found('private_key', text)).toEqual([`-----BEGIN PRIVATE KEY-----\n${body.trimEnd()}`]);
  });
  it('a partial END line at the end of the text belongs to the key', () => {
    const text = `-----BEGIN PRIVATE KEY-----\n${body}-----END PRI`;
    expect(found('private_key', text)).toEqual([text]);
  });
  it('ignores public keys, certificates and the bare word', () => {
    expect(
      found(
        'private_key',
        '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY----- and -----BEGIN CERTIFICATE----- and ' +
          '"private key"',
      ),
    ).toEqual([]);
  });
});

describe('bearer_token', () => {
  it('finds the token after Bearer, keeping the scheme word', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    expect(found('bearer_token', `Authorization: Bearer ${jwt}\n`)).toEqual([jwt]);
    expect(found('bearer_token', 'authorization: bearer abcdefghij0123456789== ok')).toEqual([
      'abcdefghij0123456789==',
    ]);
  });
  it('ignores short tokens, other schemes and the word in prose', () => {
    expect(
      found(
        'bearer_token',
        'Bearer abc123 / Basic dXNlcjpwYXNzd29yZA== / the bearer of bad news / xBearer abcdefghijklmnopqr',
      ),
    ).toEqual([]);
  });
});
