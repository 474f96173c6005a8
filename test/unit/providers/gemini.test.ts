import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';
import { geminiProvider } from '../../../src/providers/gemini.js';
import { HTTP_PROVIDERS } from '../../../src/providers/registry.js';

describe('the gemini provider kind', () => {
  it('names the model in the path, per stream or not, and counts with countTokens', () => {
    expect(HTTP_PROVIDERS.gemini).toBe(geminiProvider);
    expect(geminiProvider.chatPath('gemini-2.5-flash', false)).toBe('/models/gemini-2.5-flash:generateContent');
    expect(geminiProvider.chatPath('models/gemini-2.5-pro', true)).toBe(
      '/models/gemini-2.5-pro:streamGenerateContent?alt=sse',
    );
    expect(geminiProvider.chatPath('a b?', false)).toBe('/models/a%20b%3F:generateContent');
    expect(geminiProvider.countTokensPath?.('gemini-2.5-flash')).toBe('/models/gemini-2.5-flash:countTokens');
  });

  it('sends the key in x-goog-api-key', () => {
    expect(geminiProvider.authHeaders('AIza-key')).toEqual({ 'x-goog-api-key': 'AIza-key' });
    expect(geminiProvider.authHeaders(undefined)).toEqual({});
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
