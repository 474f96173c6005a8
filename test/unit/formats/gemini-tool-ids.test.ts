import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/core/canonical.js';
import { encodeAnthropicRequest } from '../../../src/formats/anthropic-messages/request-encode.js';
import { geminiToolCallId, signatureFromToolCallId } from '../../../src/formats/gemini-tool-ids.js';
import { encodeOpenaiRequest } from '../../../src/formats/openai-chat/request-encode.js';
import { encodeResponsesRequest } from '../../../src/formats/openai-responses/request-encode.js';

const SIGNATURE = Buffer.alloc(300, 7).toString('base64');
const signedId = geminiToolCallId({ name: 'f', args: '{}', signature: SIGNATURE }, 0, 'r');
const req: ChatRequest = {
  model: 'm',
  system: [],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'go' }] },
    { role: 'assistant', content: [{ type: 'tool_call', id: signedId, name: 'f', arguments: '{}' }] },
    { role: 'user', content: [{ type: 'tool_result', toolCallId: signedId, content: [{ type: 'text', text: 'ok' }] }] },
  ],
  tools: [{ name: 'f', parameters: { type: 'object' } }],
  stream: false,
  includeUsage: false,
  unmapped: [],
};

describe('Gemini tool-call ids', () => {
  it('carry the signature, and only ids made from one give one back', () => {
    expect(signatureFromToolCallId(signedId)).toBe(SIGNATURE);
    expect(signatureFromToolCallId('call_abc')).toBeUndefined();
    expect(signatureFromToolCallId('call_gs_')).toBeUndefined();
    expect(signatureFromToolCallId('call_gs_a+b')).toBeUndefined();
  });

  it('other formats get a short id (the same for the call and its result) and drop the signature', () => {
    const chatDropped: string[] = [];
    const chat = encodeOpenaiRequest(req, { model: 'gpt-4o' }, chatDropped) as {
      messages: Array<{ tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    };
    const id = chat.messages[1].tool_calls![0].id;
    expect(id).toMatch(/^call_g_[0-9a-f]{24}$/);
    expect(chat.messages[2].tool_call_id).toBe(id);
    expect(chatDropped).toEqual(['thought_signature']);

    const anthropic = encodeAnthropicRequest(req, { model: 'claude-sonnet-4-5' }) as {
      messages: Array<{ content: Array<{ id?: string; tool_use_id?: string }> }>;
    };
    expect(anthropic.messages[1].content[0].id).toBe(id);
    expect(anthropic.messages[2].content[0].tool_use_id).toBe(id);

    const responses = encodeResponsesRequest(req, { model: 'gpt-5' }) as { input: Array<{ call_id?: string }> };
    expect(responses.input.filter((i) => i.call_id !== undefined).map((i) => i.call_id)).toEqual([id, id]);
  });

  it('a request without signed ids is passed on as it is', () => {
    const plain = { ...req, messages: req.messages.slice(0, 1) };
    const dropped: string[] = [];
    encodeOpenaiRequest(plain, { model: 'gpt-4o' }, dropped);
    expect(dropped).toEqual([]);
  });
});
