/**
 * What is measured: the processes to start, the lanes (a way of sending the same logical request
 * to the same upstream) and the targets. To add a lane (e.g. an Anthropic-format caller through
 * the gateway to the OpenAI upstream, or a gateway with budgets/guardrails configured), add a
 * process if it needs its own (gateway-child.mjs takes `--extra <base64 YAML>`), then a lane with
 * its request shapes and validators; the runner and the report pick it up.
 */

import { GATEWAY_KEY, GATEWAY_MODEL } from './gateway-config.mjs';

/** Tests a lane can take part in. */
export const TESTS = ['latency', 'stream', 'throughput', 'memory'];

/** Child processes. `args` gets { upstreamUrl, opts }. The upstream is always started first. */
export const PROCS = {
  upstream: { file: './upstream.mjs', args: ({ opts }) => ['--chunks', String(opts.chunks), '--pacing', opts.pacing] },
  bare: { file: './bare-proxy.mjs', args: ({ upstreamUrl }) => ['--upstream', upstreamUrl] },
  gateway: { file: './gateway-child.mjs', args: ({ upstreamUrl, opts }) => ['--upstream', upstreamUrl, '--log', 'error', '--dist', opts.dist] },
  'gateway-info': { file: './gateway-child.mjs', args: ({ upstreamUrl, opts }) => ['--upstream', upstreamUrl, '--log', 'info', '--dist', opts.dist] },
};

const PROMPT = [
  { role: 'system', content: 'You are a concise assistant used for load testing.' },
  { role: 'user', content: 'Say hello in one short sentence, then stop. This prompt is padded a little so that the body is realistic.' },
];

/** An OpenAI chat-completions caller. */
function openaiRequest({ model, key, streamOptions }) {
  const base = { model, messages: PROMPT, max_tokens: 64, temperature: 0.2 };
  return {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    json: Buffer.from(JSON.stringify(base)),
    stream: Buffer.from(JSON.stringify({ ...base, stream: true, ...(streamOptions ? { stream_options: streamOptions } : {}) })),
  };
}

/** Validators return an error message, or undefined when the response is what the caller expects. */
function openaiValidators({ expectUsageChunk }) {
  return {
    json(text) {
      const body = JSON.parse(text);
      if (body.object !== 'chat.completion' || typeof body.choices?.[0]?.message?.content !== 'string') return `unexpected body: ${text.slice(0, 200)}`;
      return undefined;
    },
    stream(text, { chunks }) {
      const events = text.split('\n\n').filter((e) => e.length > 0);
      if (events.at(-1) !== 'data: [DONE]') return `stream does not end with [DONE]: …${text.slice(-80)}`;
      const parsed = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')));
      const content = parsed.filter((c) => c.choices?.length > 0).length;
      const usage = parsed.filter((c) => c.choices?.length === 0 && c.usage).length;
      if (content !== chunks) return `expected ${chunks} content chunks, got ${content}`;
      if (usage !== (expectUsageChunk ? 1 : 0)) return `expected ${expectUsageChunk ? 1 : 0} usage chunk(s), got ${usage}`;
      return undefined;
    },
  };
}

const ALL = ['latency', 'stream', 'throughput'];

/**
 * `baseline: true` marks the lane added latency is measured against (exactly one).
 * `proxy: true` means the lane's process is a proxy whose CPU per request is reported.
 */
export const LANES = [
  {
    id: 'direct',
    label: 'direct to upstream',
    proc: 'upstream',
    baseline: true,
    request: openaiRequest({ model: 'gpt-bench-upstream' }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ALL,
  },
  {
    id: 'bare',
    label: 'bare node:http + undici proxy',
    proc: 'bare',
    proxy: true,
    request: openaiRequest({ model: 'gpt-bench-upstream' }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: [...ALL, 'memory'],
  },
  {
    id: 'gateway',
    label: 'gateway (log level error)',
    proc: 'gateway',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    // The gateway asks the upstream for usage and hides the usage chunk the caller did not ask for.
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: [...ALL, 'memory'],
  },
  {
    id: 'gateway-info',
    label: 'gateway (info log, no-op write)',
    proc: 'gateway-info',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY }),
    validate: openaiValidators({ expectUsageChunk: false }),
    tests: ALL,
  },
  {
    // Same process as `gateway`; the caller asks for usage, so the relay passes bytes through
    // untouched instead of re-encoding every event.
    id: 'gateway-usage',
    label: 'gateway, stream w/ include_usage',
    proc: 'gateway',
    proxy: true,
    request: openaiRequest({ model: GATEWAY_MODEL, key: GATEWAY_KEY, streamOptions: { include_usage: true } }),
    validate: openaiValidators({ expectUsageChunk: true }),
    tests: ['stream'],
  },
];

/**
 * Targets, checked for each lane in `lanes` against the lane `vs` (ratio = lane / vs), or
 * against an absolute `limit` when `vs` is absent. `metric` reads a lane's results.
 */
export const TARGETS = [
  { id: 'throughput', text: 'throughput c=32 >= 60% of bare', metric: (r) => r.throughput?.rps, unit: 'req/s', vs: 'bare', cmp: '>=', limit: 0.6 },
  { id: 'cpu', text: 'CPU per request <= 2x bare', metric: (r) => r.throughput?.proxyCpuMsPerReq, unit: 'ms', vs: 'bare', cmp: '<=', limit: 2 },
  { id: 'latency', text: 'added latency p50 c=1 <= 1.5x bare', metric: (r) => r.latency?.addedP50, unit: 'ms', vs: 'bare', cmp: '<=', limit: 1.5, floor: 0.005 },
  { id: 'latency-p99', text: 'added latency p99 c=1 <= 1.5x bare', metric: (r) => r.latency?.addedP99, unit: 'ms', vs: 'bare', cmp: '<=', limit: 1.5, floor: 0.005, informational: true },
  { id: 'ttfb', text: 'stream TTFB p50 <= 1.3x bare', metric: (r) => r.stream?.ttfbP50, unit: 'ms', vs: 'bare', cmp: '<=', limit: 1.3 },
  { id: 'rss', text: 'peak RSS at c=128 < 150 MB', metric: (r) => r.memory?.peakRssMB, unit: 'MB', cmp: '<', limit: 150 },
];

/** Lanes the targets are evaluated for (the first is the one the verdict is about). */
export const TARGET_LANES = ['gateway', 'gateway-info', 'gateway-usage'];
