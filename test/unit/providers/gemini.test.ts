import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';
import { geminiProvider } from '../../../src/providers/gemini.js';
import { HTTP_PROVIDERS } from '../../../src/providers/registry.js';
import { upstreamPath } from '../../../src/providers/types.js';
import type { ModelSpec, ProviderConfig } from '../../../src/config/types.js';

describe('the gemini provider kind', () => {
  it('names the model in the path, per stream or not, and counts with countTokens', () => {
    expect(HTTP_PROVIDERS.gemini).toBe(geminiProvider);
    const provider = {} as ProviderConfig;
    const at = (path: string, name?: string) =>
      upstreamPath(geminiProvider, path, provider, name ? ({ upstreamName: name } as ModelSpec) : undefined);
    expect(at(geminiProvider.chatPath, 'gemini-2.5-flash')).toBe('/models/gemini-2.5-flash:generateContent');
    expect(at(geminiProvider.streamPath!, 'models/gemini-2.5-pro')).toBe(
      '/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    expect(at(geminiProvider.chatPath, 'a b?')).toBe('/models/a%20b%3F:generateContent');
    expect(at(geminiProvider.countTokensPath!, 'gemini-2.5-flash')).toBe('/models/gemini-2.5-flash:countTokens');
    expect(at(geminiProvider.healthPath)).toBe('/models');
  });

  it('sends the key in x-goog-api-key', () => {
    expect(geminiProvider.authHeaders('AIza-key', {} as ProviderConfig)).toEqual({ 'x-goog-api-key': 'AIza-key' });
    expect(geminiProvider.authHeaders(undefined, {} as ProviderConfig)).toEqual({});
  });

  it('config: api gemini defaults base_url to the v1beta endpoint and allows byok', () => {
    const r = loadConfigText(
      'providers:\n' +
        '  google:\n' +
        '    api: gemini\n' +
        '    api_key: "AIza-test"\n' +
        '    byok: optional\n' +
        '    models: { gemini-2.5-flash: { context_window: 1048576 } }\n',
      'f.yaml',
      {},
    );
    expect(r.issues).toEqual([]);
    expect(r.config!.providers.get('google')).toMatchObject({
      api: 'gemini',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
      byok: 'optional',
    });
  });
});
