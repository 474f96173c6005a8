/** The gateway config the benchmark runs with (shared by gateway-child.mjs and the lanes). */

export const GATEWAY_KEY = 'bench-gateway-key-0001';
/** OpenAI-format provider `up` (the upstream's /v1/chat/completions). */
export const GATEWAY_MODEL = 'up/gpt-bench';
/** Anthropic-format provider `anth`: the same upstream process, its /v1/messages. */
export const GATEWAY_ANTHROPIC_MODEL = 'anth/claude-bench';

/**
 * Both providers point at the same upstream process, each with its own connection pool; one key
 * and one role reach both, so pass-through and translation lanes run in the same gateway process.
 * An anthropic provider's base_url is the origin: the gateway appends /v1/messages.
 */
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
  anth:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: sk-ant-bench-upstream-secret-0001
    timeouts: { connect_ms: 2000, first_byte_ms: 10000, total_ms: 30000 }
    models:
      claude-bench: { context_window: 200000, max_output_tokens: 4096, upstream_name: claude-bench-upstream }
roles:
  bench: { models: ["up/*", "anth/*"] }
keys:
  - { id: bench, key: ${GATEWAY_KEY}, role: bench }
${extra}`;
}
