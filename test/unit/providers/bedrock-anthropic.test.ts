import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';
import type { ModelSpec, ProviderConfig } from '../../../src/config/types.js';
import { bedrockProvider } from '../../../src/providers/bedrock.js';
import { bedrockAnthropicProvider as kind } from '../../../src/providers/bedrock-anthropic.js';
import { HTTP_PROVIDERS } from '../../../src/providers/registry.js';
import { upstreamPath } from '../../../src/providers/types.js';

const MODELS =
  '    models: { claude: { upstream_name: "anthropic.claude-sonnet-4-5-20250929-v1:0", context_window: 200000 } }\n';

function load(provider: string, env: NodeJS.ProcessEnv = {}) {
  return loadConfigText(`providers:\n  aws:\n    api: bedrock-anthropic\n${provider}${MODELS}`, 'f.yaml', env);
}

describe('the bedrock-anthropic provider kind', () => {
  it('speaks Anthropic in the bedrock-invoke envelope at /invoke, /invoke-with-response-stream, /count-tokens', () => {
    expect(HTTP_PROVIDERS['bedrock-anthropic']).toBe(kind);
    expect(kind.speaks).toBe('anthropic-messages');
    expect(kind.envelope).toBe('bedrock-invoke');
    const at = (path: string, name?: string) =>
      upstreamPath(kind, path, {} as ProviderConfig, name ? ({ upstreamName: name } as ModelSpec) : undefined);
    expect(at(kind.chatPath, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
    );
    expect(at(kind.streamPath!, 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/x')).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fx/invoke-with-response-stream',
    );
    expect(at(kind.countTokensPath!, 'anthropic.claude-3-haiku-20240307-v1:0')).toBe(
      '/model/anthropic.claude-3-haiku-20240307-v1%3A0/count-tokens',
    );
    expect(at(kind.healthPath)).toBe('/async-invoke?maxResults=1');
    expect(kind.authHeaders).toBe(bedrockProvider.authHeaders);
    expect(kind.forwardHeaders).toBeUndefined();
    // CountTokens counts the body InvokeModel would take.
    expect(kind.editCountBody).toBe(kind.editBody);
  });

  it('edits a body: model and stream out, anthropic_version first, other bytes kept', () => {
    const rest = '"max_tokens":5,\n "messages":[{"role":"user","content":"{\\"model\\":1,\\"stream\\":true}"}]}';
    const edit = (body: string, headers = {}, format: 'anthropic-messages' | 'openai-chat' = 'anthropic-messages') =>
      kind.editBody!(Buffer.from(body), headers, format).toString();
    expect(edit(`{"model":"claude","stream":true,${rest}`)).toBe(`{"anthropic_version":"bedrock-2023-05-31",${rest}`);
    // A caller's own anthropic_version is replaced by Bedrock's.
    expect(JSON.parse(edit('{"anthropic_version":"x","max_tokens":1}'))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1,
    });
  });

  it("puts the messages caller's anthropic-beta values (one header, or repeated) in anthropic_beta", () => {
    const edit = (headers: Record<string, string | string[]>, format = 'anthropic-messages' as const) =>
      kind.editBody!(Buffer.from('{"model":"m","max_tokens":1}'), headers, format).toString();
    expect(edit({ 'anthropic-beta': 'a-2025-01-01, b-2025-02-02' })).toBe(
      '{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["a-2025-01-01","b-2025-02-02"],"max_tokens":1}',
    );
    expect(JSON.parse(edit({ 'anthropic-beta': ['a', 'b,c'] })).anthropic_beta).toEqual(['a', 'b', 'c']);
    expect(JSON.parse(edit({ 'anthropic-beta': ' , ' })).anthropic_beta).toBeUndefined();
    // A translated caller's betas are listed as dropped, never sent.
    const translated = kind.editBody!(Buffer.from('{"max_tokens":1}'), { 'anthropic-beta': 'a' }, 'openai-chat');
    expect(translated.toString()).toBe('{"anthropic_version":"bedrock-2023-05-31","max_tokens":1}');
  });

  it('probes with the smallest InvokeModel body', () => {
    expect(kind.probeBody('anthropic.claude-3-haiku-20240307-v1:0')).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'ping' }],
    });
  });
});

describe('bedrock-anthropic config: the bedrock kind settings and rules', () => {
  it('region gives the runtime base_url; aws credentials, or AWS_* at load, or unavailable', () => {
    const r = load('    region: eu-central-1\n    aws: { access_key_id: "AKIA1", secret_access_key: "s1" }\n');
    expect(r.issues).toEqual([]);
    expect(r.config!.providers.get('aws')).toMatchObject({
      baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
      available: true,
      bedrock: { region: 'eu-central-1', auth: 'sigv4', credentials: { accessKeyId: 'AKIA1', secretAccessKey: 's1' } },
    });
    const fromEnv = load('    region: us-east-1\n', { AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: 'env' });
    expect(fromEnv.config!.providers.get('aws')?.bedrock?.credentials).toEqual({
      accessKeyId: 'AKIAENV',
      secretAccessKey: 'env',
    });
    const none = load('    region: us-east-1\n');
    expect(none.config!.providers.get('aws')).toMatchObject({ available: false });
    expect(none.issues.map((i) => [i.severity, i.path])).toEqual([['warning', 'providers.aws']]);
  });

  it('byok only with a Bedrock API key; one way to sign in; region required', () => {
    const keyed = load('    region: us-east-1\n    api_key: "bedrock-key"\n    byok: optional\n');
    expect(keyed.issues).toEqual([]);
    expect(keyed.config!.providers.get('aws')?.bedrock).toEqual({ region: 'us-east-1', auth: 'api-key' });
    const messages = (text: string) => load(text).issues.map((i) => `${i.path}: ${i.message}`);
    expect(
      messages('    region: us-east-1\n    aws: { access_key_id: "a", secret_access_key: "s" }\n    byok: optional\n'),
    ).toEqual(['providers.aws.byok: must be never on a provider that signs with SigV4 (no api_key)']);
    expect(
      messages('    region: us-east-1\n    api_key: "k"\n    aws: { access_key_id: "a", secret_access_key: "s" }\n'),
    ).toEqual(['providers.aws.aws: api_key and aws are two ways to sign in: give one']);
    expect(messages('    api_key: "k"\n')).toEqual([
      'providers.aws: missing required property "region" (required for api "bedrock-anthropic")',
    ]);
  });
});
