import { describe, expect, it } from 'vitest';
import {
  ENVELOPE_PREFIX,
  openAnthropicReasoning,
  reasoningItemToPart,
  reasoningPartToItem,
  sealAnthropicReasoning,
} from '../../../../src/formats/openai-responses/reasoning.js';

const signed = {
  type: 'reasoning' as const,
  text: 'Let me think: "2+2" → 4.\n\nDone ✓',
  signature: 'EqQBCkYIBxgCKkB…sig==',
};

describe('the Anthropic reasoning envelope', () => {
  it('seals a signed thinking part and opens it back exactly', () => {
    const sealed = sealAnthropicReasoning(signed)!;
    expect(sealed.startsWith(ENVELOPE_PREFIX)).toBe(true);
    expect(sealed.slice(ENVELOPE_PREFIX.length)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(sealed.slice(ENVELOPE_PREFIX.length), 'base64url').toString('utf8'))).toEqual({
      text: signed.text,
      signature: signed.signature,
    });
    expect(openAnthropicReasoning(sealed)).toEqual(signed);
  });

  it('seals redacted thinking as {redacted}', () => {
    const part = { type: 'reasoning' as const, text: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' };
    expect(openAnthropicReasoning(sealAnthropicReasoning(part)!)).toEqual(part);
  });

  it('does not seal reasoning that is not Anthropic-signed', () => {
    expect(sealAnthropicReasoning({ type: 'reasoning', text: 'plain' })).toBeUndefined();
    expect(sealAnthropicReasoning({ type: 'reasoning', text: 't', encrypted: 'gAAAA', id: 'rs_1' })).toBeUndefined();
  });

  it('anything else is not an envelope: OpenAI content, a wrong prefix, bad base64 or JSON, a wrong shape', () => {
    const b64 = (v: unknown) => ENVELOPE_PREFIX + Buffer.from(JSON.stringify(v)).toString('base64url');
    expect(openAnthropicReasoning('gAAAAABor2481f2a==')).toBeUndefined();
    expect(openAnthropicReasoning(`${ENVELOPE_PREFIX}!!!`)).toBeUndefined();
    expect(openAnthropicReasoning(b64([1, 2]))).toBeUndefined();
    expect(openAnthropicReasoning(b64({ text: 'no signature' }))).toBeUndefined();
    expect(openAnthropicReasoning(b64({ text: 1, signature: 's' }))).toBeUndefined();
  });
});

describe('reasoning items ⇄ parts', () => {
  it('an OpenAI item: the summary paragraphs as text, encrypted content and id kept', () => {
    expect(
      reasoningItemToPart({
        id: 'rs_1',
        type: 'reasoning',
        summary: [
          { type: 'summary_text', text: 'First.' },
          { type: 'summary_text', text: 'Second.' },
        ],
        encrypted_content: 'gAAAAB==',
      }),
    ).toEqual({ type: 'reasoning', text: 'First.\n\nSecond.', encrypted: 'gAAAAB==', id: 'rs_1' });
  });

  it('raw reasoning content stands in for a missing summary; no id or content is fine (Codex sends none)', () => {
    expect(
      reasoningItemToPart({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'raw' }] }),
    ).toEqual({ type: 'reasoning', text: 'raw' });
  });

  it('an item holding the envelope becomes the Anthropic part again (the summary is not read)', () => {
    const item = reasoningPartToItem(signed, 'rs_gw1');
    expect(item).toEqual({
      id: 'rs_gw1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: signed.text }],
      encrypted_content: sealAnthropicReasoning(signed),
    });
    expect(reasoningItemToPart({ ...item, summary: [{ type: 'summary_text', text: 'edited' }] })).toEqual(signed);
  });

  it('part → item: OpenAI content as it is; unsigned reasoning has no encrypted_content; empty text no summary', () => {
    expect(reasoningPartToItem({ type: 'reasoning', text: '', encrypted: 'gAAAA', id: 'rs_9' }, 'rs_9')).toEqual({
      id: 'rs_9',
      type: 'reasoning',
      summary: [],
      encrypted_content: 'gAAAA',
    });
    expect(reasoningPartToItem({ type: 'reasoning', text: 'why' }, 'rs_2')).toEqual({
      id: 'rs_2',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'why' }],
    });
  });
});
