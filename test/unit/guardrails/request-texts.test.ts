import { describe, expect, it } from 'vitest';
import { collectTexts, replaceTexts, type TextMapper } from '../../../src/guardrails/content-texts.js';
import { mapBodyTexts } from '../../../src/guardrails/request-texts.js';

type Json = Record<string, unknown>;
const texts = (body: Json) => collectTexts((fn: TextMapper) => mapBodyTexts(body, fn));
const kinds = (body: Json) => {
  const out: string[] = [];
  mapBodyTexts(body, (t, k) => {
    out.push(k);
    return t;
  });
  return out;
};

describe('mapBodyTexts', () => {
  it('reads system first, then messages, then every other field in body order', () => {
    const body = {
      model: 'ant/m',
      x_note: 'note',
      messages: [{ role: 'user', content: 'hi' }],
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      metadata: { user_id: 'u1' },
    };
    expect(texts(body)).toEqual(['sys', 'hi', 'note', 'u1']);
  });
  it('reads JSON payloads (arguments, input, schemas) as one JSON text each, keys and numbers included', () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'g', input: { b: 2 } }] },
      ],
      tools: [{ name: 'g', description: 'd', input_schema: { type: 'object' } }],
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'string' } } },
    };
    expect(texts(body)).toEqual([
      'f',
      '{"a":1}',
      'g',
      '{"b":2}',
      'g',
      'd',
      '{"type":"object"}',
      'out',
      '{"type":"string"}',
    ]);
    expect(kinds(body)).toEqual(['text', 'json', 'text', 'json', 'text', 'text', 'json', 'text', 'json']);
  });
  it('skips structure, URLs, binary and encrypted data, signed reasoning and forwarded credentials', () => {
    const body = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,xyz' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'opaque' },
          ],
        },
        {
          role: 'assistant',
          content: [
            {
              type: 'web_search_tool_result',
              tool_use_id: 's1',
              content: [{ type: 'web_search_result', url: 'https://x', title: 'T', encrypted_content: 'enc' }],
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'result' },
      ],
      mcp_servers: [{ type: 'url', url: 'https://mcp', name: 'srv', authorization_token: 'tok' }],
    };
    expect(texts(body)).toEqual(['T', 'result', 'srv']);
  });
  it('reads a Responses body: instructions and input first, items as text, call arguments as JSON', () => {
    const body = {
      model: 'm',
      previous_response_id: 'resp_1',
      tools: [{ type: 'custom', name: 'apply_patch', description: 'patch' }],
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'hello' },
            { type: 'input_image', image_url: 'data:x' },
          ],
        },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":"b"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'result' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      ],
      instructions: 'be brief',
    };
    expect(texts(body)).toEqual([
      'be brief',
      'hello',
      'f',
      '{"a":"b"}',
      'result',
      'apply_patch',
      '*** Begin Patch',
      'apply_patch',
      'patch',
    ]);
    expect(kinds(body)[3]).toBe('json');
    expect(kinds(body)[6]).toBe('text');
    expect(texts({ input: 'just text' })).toEqual(['just text']);
    expect(kinds({ input: 'just text' })).toEqual(['text']);
    // An Anthropic tool_use's input object stays one JSON text.
    expect(kinds({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', input: { q: 1 } }] }] })).toEqual([
      'json',
    ]);
  });
  it('rebuilds only what changed, keeping key order, and returns the same body when nothing did', () => {
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content: 'a secret' },
        { role: 'user', content: 'b' },
      ],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    };
    expect(mapBodyTexts(body, (t) => t)).toBe(body);
    const walk = (fn: TextMapper) => mapBodyTexts(body, fn);
    const out = replaceTexts(walk, ['a [gone]', 'b', 'f', '{"type":"object","x":"[gone]"}']);
    expect(Object.keys(out)).toEqual(['model', 'messages', 'tools']);
    expect(out.messages).toEqual([
      { role: 'user', content: 'a [gone]' },
      { role: 'user', content: 'b' },
    ]);
    expect((out.messages as Json[])[1]).toBe(body.messages[1]);
    expect(out.tools).toEqual([{ name: 'f', input_schema: { type: 'object', x: '[gone]' } }]);
    expect(body.messages[0]!.content).toBe('a secret');
  });
});
