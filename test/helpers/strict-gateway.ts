/**
 * A gateway in front of the strict upstream (test/helpers/strict-upstream.ts), with one model of
 * each upstream format per kind of model the translation cares about:
 *   ant/claude      Anthropic format, upstream claude-sonnet-4-5 (thinking, native structured output)
 *   ant/old         Anthropic format, upstream claude-3-5-haiku-20241022 (no thinking, no native output format)
 *   oai/gpt         OpenAI format, upstream gpt-4o (no reasoning)
 *   oai/reasoner    OpenAI format, upstream gpt-5-mini (reasoning model: max_completion_tokens, reasoning_effort)
 * Aliases team/claude and team/gpt route to ant/claude and oai/gpt.
 */

import { loadTestConfig, startGateway, type RunningGateway } from './start-gateway.js';

export const STRICT_KEY = 'strict-gateway-key-0001';

export function strictGatewayYaml(upstreamUrl: string, extra = ''): string {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 4mb }
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  ant:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: sk-ant-strict-test
    timeouts: { connect_ms: 5000, first_byte_ms: 10000, total_ms: 20000 }
    models:
      claude: { context_window: 200000, max_output_tokens: 64000, upstream_name: claude-sonnet-4-5 }
      old: { context_window: 200000, max_output_tokens: 8192, upstream_name: claude-3-5-haiku-20241022 }
  oai:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: sk-oai-strict-test
    timeouts: { connect_ms: 5000, first_byte_ms: 10000, total_ms: 20000 }
    models:
      gpt: { context_window: 128000, max_output_tokens: 16384, upstream_name: gpt-4o }
      reasoner: { context_window: 400000, max_output_tokens: 128000, upstream_name: gpt-5-mini }
aliases:
  team/claude: { targets: [ ant/claude ] }
  team/gpt: { targets: [ oai/gpt ] }
roles:
  dev: { models: ["*"] }
keys:
  - { id: dev, key: ${STRICT_KEY}, role: dev }
${extra}`;
}

export function startStrictGateway(upstreamUrl: string, extra = ''): Promise<RunningGateway> {
  return startGateway(loadTestConfig(strictGatewayYaml(upstreamUrl, extra)));
}

export function anthropicHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-key': STRICT_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...extra };
}

export function openaiHeaders(): Record<string, string> {
  return { authorization: `Bearer ${STRICT_KEY}`, 'content-type': 'application/json' };
}
