/** The gateway config the benchmark runs with (shared by gateway-child.mjs and the lanes). */

export const GATEWAY_KEY = 'bench-gateway-key-0001';
/** OpenAI-format provider `up` (the upstream's /v1/chat/completions). */
export const GATEWAY_MODEL = 'up/gpt-bench';
/** Anthropic-format provider `anth`: the same upstream process, its /v1/messages. */
export const GATEWAY_ANTHROPIC_MODEL = 'anth/claude-bench';
/** OpenAI Responses provider `resp`: the same upstream process, its /v1/responses. */
export const GATEWAY_RESPONSES_MODEL = 'resp/gpt-bench';

/**
 * Every model has a price (every gateway lane computes each request's cost, so the limits lanes
 * differ from `gateway` only by their budget, rate limit and store).
 * The providers point at the same upstream process, each with its own connection pool; one key
 * and one role reach them all, so pass-through and translation lanes run in the same gateway process.
 * An anthropic provider's base_url is the origin: the gateway appends /v1/messages; the openai and
 * openai-responses ones end in /v1 (the gateway appends /chat/completions, /responses).
 */
export function gatewayConfigYaml(upstreamUrl, extra = '') {
  // A `\` at the end of a line continues it on the next (a template literal line continuation: no newline).
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 1mb, shutdown_grace_ms: 1000 }
providers:
  up:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: sk-bench-upstream-secret-0001
    timeouts: { connect_ms: 2000, first_byte_ms: 10000, total_ms: 30000 }
    models:
      gpt-bench: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-bench-upstream, \
price: { input: 0.15, output: 0.60 } }
  anth:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: sk-ant-bench-upstream-secret-0001
    timeouts: { connect_ms: 2000, first_byte_ms: 10000, total_ms: 30000 }
    models:
      claude-bench: { context_window: 200000, max_output_tokens: 4096, upstream_name: claude-bench-upstream, \
price: { input: 3, output: 15 } }
  resp:
    api: openai-responses
    base_url: ${upstreamUrl}/v1
    api_key: sk-bench-upstream-secret-0001
    timeouts: { connect_ms: 2000, first_byte_ms: 10000, total_ms: 30000 }
    models:
      gpt-bench: { context_window: 128000, max_output_tokens: 4096, upstream_name: gpt-bench-upstream, \
price: { input: 0.15, output: 0.60 } }
roles:
  bench: { models: ["up/*", "anth/*", "resp/*"] }
keys:
  - { id: bench, key: ${GATEWAY_KEY}, role: bench }
${extra}`;
}

/** What the limits lanes (`--extra`) allow: far more than a run sends, so nothing is refused. */
export const LIMITS = { budgetUsd: 1_000_000, requestsPerMinute: 10_000_000 };

/**
 * Config sections for the limits lanes, appended with `gateway-child.mjs --extra`: the `state:`
 * store, one enforced budget for the role (period `period`, default month, as in
 * gateway.example.yaml) and one requests-per-minute limit per key of the role. Each request
 * reserves and settles both counters.
 */
export function limitsYaml(state, period = 'month') {
  return `
state: ${state}
budgets:
  - { id: bench-budget, scope: { role: bench }, limit_usd: ${LIMITS.budgetUsd}, period: ${period} }
rate_limits:
  - { id: bench-rpm, scope: { each_key_of_role: bench }, requests_per_minute: ${LIMITS.requestsPerMinute} }
`;
}

/** The embedded store, in memory only (no state file written during the run). */
export const MEMORY_STATE = '{ store: memory, persist: false }';

/** Redis at `url` (the benchmark's own redis-server); one key prefix per run. */
export const redisState = (url) =>
  `{ store: redis, url: "${url}", key_prefix: "gateway-bench-${process.pid}:", on_unavailable: fail_closed }`;

/**
 * Config section for the `guardrails` lane (`gateway-child.mjs --extra`): every built-in detector,
 * action redact, on input and output. The benchmark's prompt and replies contain nothing they
 * match, so this measures the cost of scanning (and of the canonical path output rules force:
 * no byte pass-through, stream hold-back), not of redacting.
 */
export const GUARDRAIL_DETECTORS = [
  'email',
  'phone',
  'credit_card',
  'iban',
  'aws_access_key',
  'private_key',
  'bearer_token',
];
export function guardrailsYaml() {
  const detectors = GUARDRAIL_DETECTORS.join(', ');
  return `
guardrails:
  - { id: bench-pii, applies_to: both, check: { type: detectors, detectors: [${detectors}] }, action: redact }
`;
}

/** The bearer key of the production lane's GET /metrics (on the main port, as README's example). */
export const METRICS_ADMIN_KEY = 'bench-metrics-admin-0001';

/**
 * The `prod` lane (`gateway-child.mjs --extra`): the gateway configured the way teams run it.
 * - Request log: JSON at info, appended to a file by `observability.log.file` (gateway-child.mjs
 *   logs as `gateway serve` does when the config names a file; `${BENCH_LOG_DIR}` is a temporary
 *   directory it creates and removes).
 * - Prometheus metrics on (an admin key, so /metrics is served on the main port behind it); every
 *   request is recorded, whether or not anything scrapes.
 * - One budget and one rate limit on the embedded store (limitsYaml, as the `limits` lane).
 * - Guardrails as README's example: the credential detectors on both directions with action
 *   `block` (a key in a prompt or a reply is an incident: refusing it is what teams run, rather
 *   than forwarding a silently altered text), and PII redaction (email, phone, credit card, IBAN)
 *   on output. The benchmark's texts match none of them: this measures scanning, not redacting.
 */
export function productionYaml(state, period = 'month') {
  return `
observability:
  log: { level: info, format: json, file: "\${BENCH_LOG_DIR}/requests.jsonl", include_prompts: false }
  metrics: { admin_key: ${METRICS_ADMIN_KEY} }
${limitsYaml(state, period)}
guardrails:
  - id: no-secrets
    applies_to: both
    check: { type: detectors, detectors: [aws_access_key, private_key, bearer_token] }
    action: block
  - id: pii
    applies_to: output
    check: { type: detectors, detectors: [email, phone, credit_card, iban] }
    action: redact
`;
}
