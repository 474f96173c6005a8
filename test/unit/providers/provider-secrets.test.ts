import { describe, expect, it } from 'vitest';
import { CachedTokenSource } from '../../../src/providers/cached-token.js';
import { configuredSecrets, fetchedTokens } from '../../../src/providers/provider-secrets.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

/** Hands out tok-1, tok-2… each living 0 ms, so every get() fetches. */
class Counting extends CachedTokenSource {
  n = 0;
  protected async fetchToken() {
    this.n += 1;
    return { value: `tok-${this.n}`, lifetimeMs: 0 };
  }
}

describe('CachedTokenSource.recentTokens', () => {
  it('remembers the last four tokens fetched, newest last, forgotten ones included', async () => {
    const source = new Counting();
    expect(source.recentTokens()).toEqual([]);
    for (let i = 0; i < 6; i++) {
      await source.get();
      source.forget();
    }
    expect(source.recentTokens()).toEqual(['tok-3', 'tok-4', 'tok-5', 'tok-6']);
  });
});

describe('a provider’s secrets', () => {
  const config = loadTestConfig(`
providers:
  az:
    api: azure-openai
    base_url: http://127.0.0.1:9
    api_version: "2024-10-21"
    entra: { tenant_id: t, client_id: c, client_secret: entra-client-secret-1 }
    models: { m: { context_window: 1000 } }
  key:
    api: openai
    base_url: http://127.0.0.1:9/v1
    api_key: sk-configured-key-0001
    models: { m: { context_window: 1000 } }
  vx:
    api: vertex
    vertex: { project: p, location: us-central1, credentials_file: /nonexistent.json }
    models: { m: { context_window: 1000 } }
roles: { all: { models: ["*"] } }
keys: [{ id: k, key: unit-key-0001, role: all }]
`);
  const provider = (id: string) => config.providers.get(id)!;

  it('configured: the api key, the Entra ID client secret; none for a service account', () => {
    expect(configuredSecrets(provider('az'))).toEqual(['entra-client-secret-1']);
    expect(configuredSecrets(provider('key'))).toEqual(['sk-configured-key-0001']);
    expect(configuredSecrets(provider('vx'))).toEqual([]);
  });

  it('fetched: no token before any was fetched, none for a kind that sends a key', () => {
    for (const id of ['az', 'key', 'vx']) expect(fetchedTokens(provider(id))).toEqual([]);
  });
});
