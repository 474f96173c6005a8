import { countTokens as o200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/core/canonical.js';
import { GatewayError } from '../../../src/core/errors.js';
import { countingCandidate, countTokensLocal } from '../../../src/routing/count-tokens.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

// `cloud` has no api_key variable set: its provider is unavailable.
const config = loadTestConfig(`
providers:
  cloud:
    api: openai
    base_url: "http://127.0.0.1:1/v1"
    api_key: "\${COUNT_TOKENS_TEST_UNSET_KEY}"
    models: { gpt-4o: { context_window: 128000 } }
  oa:
    api: openai
    base_url: "http://127.0.0.1:1/v1"
    models: { turbo: { context_window: 16385, upstream_name: gpt-3.5-turbo } }
  local:
    api: mock
    models: { tiny: { context_window: 9 }, echo: { context_window: 8192 } }
aliases:
  team/smart: { targets: [cloud/gpt-4o, oa/turbo] }
  team/offline: { targets: [cloud/gpt-4o], fallbacks: [local/echo] }
  team/down: { targets: [cloud/gpt-4o] }
roles:
  all: { models: ["*"] }
`);

const hello: ChatRequest = {
  model: 'x',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }],
  tools: [],
  stream: false,
  includeUsage: false,
  unmapped: [],
};
/** 3 priming + 3 per message + 1 for the role + the text. */
const HELLO = 3 + 3 + 1 + o200k('hello world');

describe('countTokensLocal', () => {
  it('counts for a concrete model with its context window', () => {
    expect(countTokensLocal(config, 'cloud/gpt-4o', hello)).toEqual({
      inputTokens: HELLO,
      model: 'cloud/gpt-4o',
      contextWindow: 128000,
      fits: true,
      method: 'local',
      encoding: 'o200k_base',
      exact: true,
    });
  });

  it('picks the family from the upstream name, not the configured name', () => {
    expect(countTokensLocal(config, 'oa/turbo', hello)).toMatchObject({
      model: 'oa/turbo',
      encoding: 'cl100k_base',
      exact: true,
    });
  });

  it('an alias counts for its first candidate whose provider is available, else its first', () => {
    expect(countTokensLocal(config, 'team/smart', hello)).toMatchObject({
      model: 'oa/turbo',
      contextWindow: 16385,
      encoding: 'cl100k_base',
    });
    expect(countTokensLocal(config, 'team/offline', hello)).toMatchObject({
      model: 'local/echo',
      contextWindow: 8192,
      exact: false,
    });
    expect(countingCandidate(config, 'team/down').model.id).toBe('cloud/gpt-4o');
  });

  it('fits is inputTokens <= contextWindow', () => {
    expect(HELLO).toBe(9); // local/tiny's context window: exactly full still fits
    expect(countTokensLocal(config, 'local/tiny', hello)).toMatchObject({
      inputTokens: 9,
      contextWindow: 9,
      fits: true,
      exact: false,
    });
    const more = {
      ...hello,
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hello world!' }] }],
    };
    expect(countTokensLocal(config, 'local/tiny', more)).toMatchObject({ inputTokens: 10, fits: false });
  });

  it('an unknown model is model_not_found on the model param', () => {
    let err: unknown;
    try {
      countTokensLocal(config, 'nope/model', hello);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'model_not_found', status: 404, param: 'model' });
  });
});
