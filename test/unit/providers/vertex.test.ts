import { describe, expect, it } from 'vitest';
import type { ModelSpec, ProviderConfig } from '../../../src/config/types.js';
import { HTTP_PROVIDERS } from '../../../src/providers/registry.js';
import { upstreamPath } from '../../../src/providers/types.js';
import { vertexProvider } from '../../../src/providers/vertex.js';
import { vertexAnthropicProvider } from '../../../src/providers/vertex-anthropic.js';

const provider = {} as ProviderConfig;
const model = (upstreamName: string) => ({ upstreamName }) as ModelSpec;

describe('the vertex provider kinds', () => {
  it("vertex: Gemini models under publishers/google, the Gemini format, the model's countTokens", () => {
    expect(HTTP_PROVIDERS.vertex).toBe(vertexProvider);
    expect(vertexProvider.speaks).toBe('gemini');
    expect(upstreamPath(vertexProvider, vertexProvider.chatPath, provider, model('gemini-2.5-flash'))).toBe(
      '/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(upstreamPath(vertexProvider, vertexProvider.streamPath!, provider, model('gemini-2.5-pro'))).toBe(
      '/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    expect(upstreamPath(vertexProvider, vertexProvider.healthPath, provider)).toBe('/models?pageSize=1');
    expect(upstreamPath(vertexProvider, vertexProvider.countTokensPath!, provider, model('gemini-2.5-pro'))).toBe(
      '/publishers/google/models/gemini-2.5-pro:countTokens',
    );
    expect(vertexProvider.editBody).toBeUndefined();
  });

  it("vertex: the Gemini API's count body becomes Vertex's, the counted fields at the top", () => {
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const request = {
      model: 'models/gemini-2.5-pro',
      contents,
      systemInstruction: { parts: [{ text: 'sys' }] },
      tools: [{ functionDeclarations: [{ name: 'f' }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    };
    const edited = vertexProvider.editCountBody!(
      Buffer.from(JSON.stringify({ generateContentRequest: request })),
      {},
      'openai-chat',
    );
    expect(JSON.parse(edited.toString())).toEqual({
      contents,
      systemInstruction: request.systemInstruction,
      tools: request.tools,
    });
  });

  it('vertex-anthropic: Claude models under publishers/anthropic, the @version kept, others escaped', () => {
    const kind = vertexAnthropicProvider;
    expect(HTTP_PROVIDERS['vertex-anthropic']).toBe(kind);
    expect(kind.speaks).toBe('anthropic-messages');
    expect(upstreamPath(kind, kind.chatPath, provider, model('claude-sonnet-4-5@20250929'))).toBe(
      '/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
    expect(upstreamPath(kind, kind.streamPath!, provider, model('a/b c'))).toBe(
      '/publishers/anthropic/models/a%2Fb%20c:streamRawPredict',
    );
    // The count endpoint is the publisher's, whatever the model (the body names it).
    expect(upstreamPath(kind, kind.countTokensPath!, provider, model('claude-sonnet-4-5@20250929'))).toBe(
      '/publishers/anthropic/models/count-tokens:rawPredict',
    );
    const counted = kind.editCountBody!(
      Buffer.from('{"model":"claude-sonnet-4-5@20250929","messages":[]}'),
      {},
      'anthropic-messages',
    );
    expect(counted.toString()).toBe(
      '{"anthropic_version":"vertex-2023-10-16","model":"claude-sonnet-4-5@20250929","messages":[]}',
    );
  });

  it('vertex-anthropic edits a body exactly twice: model out, anthropic_version in, other bytes kept', () => {
    const edit = (body: Buffer) => vertexAnthropicProvider.editBody!(body, {}, 'anthropic-messages');
    const rest = '"max_tokens":5,\n "messages":[{"role":"user","content":"{\\"model\\":1}"}]}';
    expect(edit(Buffer.from(`{"model":"claude",${rest}`)).toString()).toBe(
      `{"anthropic_version":"vertex-2023-10-16",${rest}`,
    );
    // A caller's own anthropic_version is replaced by Vertex's.
    expect(JSON.parse(edit(Buffer.from('{"anthropic_version":"x","max_tokens":1}')).toString())).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 1,
    });
  });

  it('vertex-anthropic passes anthropic-beta from a messages caller, never anthropic-version', () => {
    const headers = { 'anthropic-beta': 'b1', 'anthropic-version': '2023-06-01' };
    expect(vertexAnthropicProvider.forwardHeaders!(headers, 'anthropic-messages')).toEqual({ 'anthropic-beta': 'b1' });
    expect(vertexAnthropicProvider.forwardHeaders!(headers, 'openai-chat')).toEqual({});
    expect(vertexAnthropicProvider.probeBody('m')).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'ping' }],
    });
  });
});
