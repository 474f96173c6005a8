import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';
import type { ModelSpec, ProviderConfig } from '../../../src/config/types.js';
import { bedrockProvider } from '../../../src/providers/bedrock.js';
import { HTTP_PROVIDERS } from '../../../src/providers/registry.js';
import { upstreamPath } from '../../../src/providers/types.js';

const CREDS = { accessKeyId: 'AKIAUNITTEST0000001', secretAccessKey: 'unit/secret', sessionToken: 'unit-session' };
const MODELS =
  '    models: { claude: { upstream_name: "anthropic.claude-3-haiku-20240307-v1:0", context_window: 200000 } }\n';

function load(provider: string, env: NodeJS.ProcessEnv = {}) {
  return loadConfigText(`providers:\n  aws:\n    api: bedrock\n${provider}${MODELS}`, 'f.yaml', env);
}

describe('the bedrock provider kind', () => {
  it('puts the URL-encoded model id (inference profile, ARN) before converse / converse-stream / count-tokens', () => {
    expect(HTTP_PROVIDERS.bedrock).toBe(bedrockProvider);
    const at = (path: string, name?: string) =>
      upstreamPath(
        bedrockProvider,
        path,
        {} as ProviderConfig,
        name ? ({ upstreamName: name } as ModelSpec) : undefined,
      );
    expect(at(bedrockProvider.chatPath, 'us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(
      '/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse',
    );
    expect(at(bedrockProvider.streamPath!, 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/x')).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fx/converse-stream',
    );
    expect(at(bedrockProvider.healthPath)).toBe('/async-invoke?maxResults=1');
    // CountTokens takes foundation models: an inference profile is counted as the model it serves.
    expect(at(bedrockProvider.countTokensPath!, 'anthropic.claude-3-5-haiku-20241022-v1:0')).toBe(
      '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/count-tokens',
    );
    expect(at(bedrockProvider.countTokensPath!, 'us.anthropic.claude-sonnet-4-20250514-v1:0')).toBe(
      '/model/anthropic.claude-sonnet-4-20250514-v1%3A0/count-tokens',
    );
    expect(at(bedrockProvider.countTokensPath!, 'global.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(
      '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens',
    );
    const arn = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/abc';
    expect(at(bedrockProvider.countTokensPath!, arn)).toBe(`/model/${encodeURIComponent(arn)}/count-tokens`);
    expect(at(bedrockProvider.countTokensPath!, 'amazon.nova-pro-v1:0')).toBe(
      '/model/amazon.nova-pro-v1%3A0/count-tokens',
    );
  });

  it('a Bedrock API key is a bearer token; otherwise the request is SigV4-signed for the region', async () => {
    const provider = { id: 'aws', bedrock: { region: 'us-west-2', auth: 'sigv4', credentials: CREDS } };
    const request = {
      method: 'POST' as const,
      url: 'https://bedrock-runtime.us-west-2.amazonaws.com/model/m/converse',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{}'),
    };
    expect(await bedrockProvider.authHeaders('bedrock-key', provider as ProviderConfig, request)).toEqual({
      authorization: 'Bearer bedrock-key',
    });
    const signed = await bedrockProvider.authHeaders(undefined, provider as ProviderConfig, request);
    expect(Object.keys(signed).sort()).toEqual([
      'authorization',
      'host',
      'x-amz-content-sha256',
      'x-amz-date',
      'x-amz-security-token',
    ]);
    expect(signed.host).toBe('bedrock-runtime.us-west-2.amazonaws.com');
    expect(signed['x-amz-security-token']).toBe('unit-session');
    const [scope, headers, signature] = signed.authorization.split(', ');
    expect(scope).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAUNITTEST0000001\/\d{8}\/us-west-2\/bedrock\/aws4_request$/);
    expect(headers).toBe('SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token');
    expect(signature).toMatch(/^Signature=[0-9a-f]{64}$/);
    await expect(
      bedrockProvider.authHeaders(
        undefined,
        { id: 'aws', bedrock: { region: 'us-west-2', auth: 'sigv4' } } as ProviderConfig,
        request,
      ),
    ).rejects.toThrow('Provider "aws" has no AWS credentials to sign with.');
  });
});

describe('bedrock config', () => {
  it('region gives the runtime base_url; aws credentials are taken as configured', () => {
    const r = load(
      '    region: eu-central-1\n    aws: { access_key_id: "AKIA1", secret_access_key: "s1", session_token: "t1" }\n',
    );
    expect(r.issues).toEqual([]);
    expect(r.config!.providers.get('aws')).toMatchObject({
      baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
      available: true,
      bedrock: {
        region: 'eu-central-1',
        auth: 'sigv4',
        credentials: { accessKeyId: 'AKIA1', secretAccessKey: 's1', sessionToken: 't1' },
      },
    });
  });

  it('without aws or api_key: the AWS_* variables at load, else the provider is unavailable', () => {
    const env = { AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: 'envsecret', AWS_SESSION_TOKEN: 'envtok' };
    const fromEnv = load('    region: us-east-1\n', env);
    expect(fromEnv.config!.providers.get('aws')?.bedrock?.credentials).toEqual({
      accessKeyId: 'AKIAENV',
      secretAccessKey: 'envsecret',
      sessionToken: 'envtok',
    });
    const none = load('    region: us-east-1\n');
    expect(none.config!.providers.get('aws')).toMatchObject({ available: false });
    expect(none.issues.map((i) => [i.severity, i.path, i.message])).toEqual([
      [
        'warning',
        'providers.aws',
        'no AWS credentials (aws, api_key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); ' +
          'provider "aws" is unavailable',
      ],
    ]);
  });

  it('an aws variable that is unset makes the provider unavailable, as an unset api_key does', () => {
    const r = load('    region: us-east-1\n    aws: { access_key_id: "AKIA1", secret_access_key: "${MY_SECRET}" }\n');
    expect(r.config!.providers.get('aws')).toMatchObject({ available: false });
    expect(r.issues[0]).toMatchObject({ severity: 'warning', path: 'providers.aws.aws.secret_access_key' });
  });

  it('a Bedrock API key allows byok; SigV4 does not; one way to sign in; region required, and only on bedrock', () => {
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
    expect(messages('    api_key: "k"\n').join('\n')).toContain('region');
    expect(messages('    region: US-EAST\n    api_key: "k"\n').join('\n')).toContain('providers.aws.region');
    const other = loadConfigText(
      'providers:\n  o:\n    api: openai\n    base_url: "http://x"\n    region: us-east-1\n' +
        '    models: { m: { context_window: 1 } }\n',
      'f.yaml',
      {},
    );
    expect(other.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'providers.o: property "region" is not allowed for api "openai"',
    ]);
  });
});
