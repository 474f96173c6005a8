/** The gateway config the benchmark runs with (shared by gateway-child.mjs and the lanes). */

export const GATEWAY_KEY = 'bench-gateway-key-0001';
export const GATEWAY_MODEL = 'up/gpt-bench';

export function gatewayConfigYaml(upstreamUrl, extra = '') {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 1mb, shutdown_grace_ms: 1000 }
providers:
  up:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: sk-bench-upstream-secret-0001
    timeouts: { connect_ms: 2000, first_byte_ms: 10000, total_ms: 30000 }
    models:
      gpt-bench: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-bench-upstream }
roles:
  bench: { models: ["up/*"] }
keys:
  - { id: bench, key: ${GATEWAY_KEY}, role: bench }
${extra}`;
}
