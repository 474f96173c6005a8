import { describe, expect, it } from 'vitest';
import { loadTestConfig } from '../../helpers/start-gateway.js';
import { azureOpenaiProvider, contentFilterMessage } from '../../../src/providers/azure-openai.js';
import { upstreamPath } from '../../../src/providers/types.js';

const config = loadTestConfig(`
providers:
  dep:
    api: azure-openai
    resource: r
    api_version: "2024-10-21"
    models: { m: { context_window: 1, upstream_name: "my deploy/1" } }
  v1: { api: azure-openai, resource: r, style: v1, api_key: k, models: { m: { context_window: 1, upstream_name: d } } }
`);
const at = (provider: string, path: string) => {
  const p = config.providers.get(provider)!;
  return upstreamPath(azureOpenaiProvider, path, p, p.models.get('m')!);
};

describe('azure-openai paths', () => {
  it('deployment style: the deployment escaped in the path, the api-version in the query', () => {
    expect(at('dep', '/chat/completions')).toBe(
      '/openai/deployments/my%20deploy%2F1/chat/completions?api-version=2024-10-21',
    );
    expect(at('dep', '/embeddings')).toBe('/openai/deployments/my%20deploy%2F1/embeddings?api-version=2024-10-21');
  });

  it('v1 style: OpenAI paths under /openai/v1', () => {
    expect(at('v1', '/chat/completions')).toBe('/openai/v1/chat/completions');
    expect(at('v1', '/embeddings')).toBe('/openai/v1/embeddings');
  });

  it('sends a configured or caller key as api-key, nothing without one', async () => {
    const p = config.providers.get('v1')!;
    expect(await azureOpenaiProvider.authHeaders('k', p)).toEqual({ 'api-key': 'k' });
    expect(await azureOpenaiProvider.authHeaders(undefined, p)).toEqual({});
  });
});

describe('contentFilterMessage', () => {
  it('names the categories that filtered, with their severity', () => {
    const body = {
      error: {
        code: 'content_filter',
        innererror: {
          content_filter_result: {
            hate: { filtered: true, severity: 'medium' },
            jailbreak: { filtered: true, detected: true },
            sexual: { filtered: false, severity: 'safe' },
          },
        },
      },
    };
    expect(contentFilterMessage(body)).toBe(
      "Azure OpenAI's content filter refused the prompt: hate (medium), jailbreak",
    );
  });

  it('still says so without details, and leaves other errors to the format', () => {
    expect(contentFilterMessage({ error: { code: 'content_filter' } })).toBe(
      "Azure OpenAI's content filter refused the prompt",
    );
    expect(contentFilterMessage({ error: { code: 'DeploymentNotFound', message: 'x' } })).toBeUndefined();
    expect(contentFilterMessage('not an object')).toBeUndefined();
    expect(contentFilterMessage(null)).toBeUndefined();
  });
});
