/**
 * The gateway the client conformance suites (test/clients/*.test.ts) point real client libraries
 * at: one OpenAI-format and one Anthropic-format provider on the same mock upstream, each reached
 * through an alias (what people configure) and by its concrete id (model names that look like
 * real ones, since the client libraries switch behaviour on the model name).
 *
 *   team/gpt     → oai/gpt-4o-mini             (OpenAI-format upstream)
 *   team/claude  → ant/claude-sonnet-4-5       (Anthropic-format upstream)
 *
 * Keys: CLIENT_KEY may use everything; LIMITED_KEY only team/gpt (team/claude is a 403);
 * BROKE_KEY has a budget too small for any request (429 budget_exceeded before any upstream call).
 */
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

export const CLIENT_KEY = 'client-suite-key-0001';
export const LIMITED_KEY = 'client-suite-key-0002';
export const BROKE_KEY = 'client-suite-key-0003';

export const OAI_ALIAS = 'team/gpt';
export const ANT_ALIAS = 'team/claude';
export const OAI_MODEL = 'oai/gpt-4o-mini';
export const ANT_MODEL = 'ant/claude-sonnet-4-5';

/** The two upstream formats, each by alias and by concrete id. */
export const UPSTREAMS = [
  { upstream: 'openai', alias: OAI_ALIAS, concrete: OAI_MODEL },
  { upstream: 'anthropic', alias: ANT_ALIAS, concrete: ANT_MODEL },
] as const;

export function clientConfigYaml(upstreamUrl: string): string {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 1mb, shutdown_grace_ms: 2000 }
# One upstream call per request, and no circuit opened by scripted failures.
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  oai:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: sk-oai-client-suite-000111
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 }
    models:
      gpt-4o-mini: { context_window: 128000, max_output_tokens: 1000, price: { input: 1, output: 1 } }
  ant:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: sk-ant-client-suite-000222
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 }
    models:
      claude-sonnet-4-5: { context_window: 200000, max_output_tokens: 1000, price: { input: 1, output: 1 } }
aliases:
  ${OAI_ALIAS}: { targets: [ ${OAI_MODEL} ] }
  ${ANT_ALIAS}: { targets: [ ${ANT_MODEL} ] }
roles:
  all: { models: ["*"] }
  limited: { models: ["${OAI_ALIAS}"] }
  broke: { models: ["*"] }
keys:
  - { id: all, key: ${CLIENT_KEY}, role: all }
  - { id: limited, key: ${LIMITED_KEY}, role: limited }
  - { id: broke, key: ${BROKE_KEY}, role: broke }
budgets:
  - { id: broke-total, scope: { key: broke }, limit_usd: 0.000001, period: total }
`;
}

export function startClientGateway(upstreamUrl: string): Promise<RunningGateway> {
  return startGateway(loadTestConfig(clientConfigYaml(upstreamUrl)));
}
