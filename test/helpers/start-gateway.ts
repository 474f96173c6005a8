import { loadConfigText } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { createLogger } from '../../src/observe/logger.js';
import { createGateway, type Gateway } from '../../src/server/http.js';

export const TEST_KEY = 'test-gateway-key-0001';
export const OTHER_ROLE_KEY = 'test-gateway-key-0002';
export const PROVIDER_SECRET = 'sk-provider-secret-value-123456';

/** A config with a mock provider, an OpenAI-compatible provider at `upstreamUrl`, an alias and two roles. */
export function testConfigYaml(upstreamUrl: string, extra = ''): string {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 2kb, shutdown_grace_ms: 2000 }
# Format tests: one upstream call per request, and no circuit opened by scripted failures.
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  up:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: ${PROVIDER_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 1500, total_ms: 5000 }
    models:
      gpt-test: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-test-upstream }
      other: { context_window: 32000 }
  local:
    api: mock
    models:
      echo: { context_window: 8192 }
  offline:
    api: openai
    base_url: http://127.0.0.1:9/v1
    api_key: "\${GATEWAY_TEST_UNSET_VAR}"
    models:
      m: { context_window: 1000 }
aliases:
  team/fast: { strategy: ordered, targets: [ { model: up/gpt-test, weight: 1 }, local/echo ] }
  team/dead: { targets: [ offline/m ] }
roles:
  developer: { models: ["team/*", "local/*", "up/gpt-test", "offline/*"] }
  viewer: { models: ["local/echo"] }
keys:
  - { id: dev, key: ${TEST_KEY}, role: developer }
  - { id: view, key: ${OTHER_ROLE_KEY}, role: viewer }
${extra}`;
}

export function loadTestConfig(yaml: string): GatewayConfig {
  const r = loadConfigText(yaml, 'test.yaml', {});
  if (!r.config)
    throw new Error(
      `test config invalid:\n${r.issues.map((i) => `${i.line}:${i.col} ${i.path}: ${i.message}`).join('\n')}`,
    );
  return r.config;
}

export interface RunningGateway {
  url: string;
  gateway: Gateway;
  logs: string[];
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logs: string[] = [];
  const gateway = createGateway(config, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
  const url = await gateway.listen(0, '127.0.0.1');
  return { url, gateway, logs, close: () => gateway.close(1000) };
}

export function authHeaders(key = TEST_KEY): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}
