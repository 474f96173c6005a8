/**
 * A gateway with an OpenAI chat, an Anthropic and an OpenAI Responses provider on the same
 * programmable upstream (test/helpers/fake-upstream.ts), so every endpoint × provider pair
 * (pass-through and translated) can be driven with raw upstream bytes: cut streams, malformed events,
 * echoed keys. With `kinds`, also a provider of each kind of kind-rigs.ts (named after its kind), whose
 * front relays to the same upstream: KIND_PAIRS. Bedrock Converse (THE fake upstream speaks it) signs with SigV4
 * and a session token (AWS_SIGNER), so the AWS secrets are among those checked.
 */

import { request } from 'node:http';
import type { AwsTestCredentials } from '../helpers/aws-auth.js';
import { exceptionFrame } from '../helpers/bedrock-frames.js';
import { AWS_TEST_ACCOUNT, bedrockLastUserText, isBedrockPath, isBedrockStream } from '../helpers/bedrock-rules.js';
import {
  answerBody,
  answerEvents,
  answerFrames,
  type Chunk,
  type FakeUpstream,
  type FakeUpstreamOptions,
  type Handler,
  lastUserText,
  startFakeUpstream,
  type UpstreamCall,
} from '../helpers/fake-upstream.js';
import { SEC_ANT_KEY, SEC_GW_KEY, SEC_OAI_KEY, SEC_RESP_KEY, securityGateway } from '../helpers/gateway-config.js';
import { type KindFront, type KindId, KINDS } from '../helpers/kind-rigs.js';
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';

export const GW_KEY = SEC_GW_KEY;
export const OAI_KEY = SEC_OAI_KEY;
export const ANT_KEY = SEC_ANT_KEY;
export const RESP_KEY = SEC_RESP_KEY;

/** The caller's endpoint: /v1/chat/completions, /v1/messages, /v1/responses. */
export type Endpoint = 'openai' | 'anthropic' | 'responses';
export const PROVIDERS = ['oa', 'an', 'rs'] as const;
export type Provider = (typeof PROVIDERS)[number];
/** A direct provider, or the provider of a kind (a rig started with `kinds`). */
export type PairProvider = Provider | KindId;
/** The chat and messages caller × provider pairs: two pass-through, two translated. */
export const PAIRS: Array<[Endpoint, Provider]> = [
  ['openai', 'oa'],
  ['openai', 'an'],
  ['anthropic', 'oa'],
  ['anthropic', 'an'],
];
/** The pairs the Responses format takes part in, as caller or as provider: one pass-through, four translated. */
export const RESPONSES_PAIRS: Array<[Endpoint, Provider]> = [
  ['responses', 'rs'],
  ['responses', 'oa'],
  ['responses', 'an'],
  ['openai', 'rs'],
  ['anthropic', 'rs'],
];
/** Every endpoint × provider pair. */
export const ALL_PAIRS: Array<[Endpoint, Provider]> = [...PAIRS, ...RESPONSES_PAIRS];
/** Every endpoint × each kind's provider (a rig started with `kinds`). */
export const KIND_PAIRS: Array<[Endpoint, PairProvider]> = KINDS.flatMap((rig) =>
  (['openai', 'anthropic', 'responses'] as const).map((ep): [Endpoint, PairProvider] => [ep, rig.kind]),
);
/** Each kind's provider from the messages endpoint only (Claude Code's), for slow suites. */
export const KIND_MESSAGES_PAIRS = KIND_PAIRS.filter(([ep]) => ep === 'anthropic');

/** The wire format an upstream path speaks. */
export function formatOfPath(path: string): 'openai' | 'anthropic' | 'responses' | 'gemini' | 'bedrock' {
  if (path.startsWith('/v1beta/')) return 'gemini';
  if (isBedrockPath(path)) return 'bedrock';
  return path.endsWith('/chat/completions') ? 'openai' : path.endsWith('/responses') ? 'responses' : 'anthropic';
}

/** The AWS credentials the Bedrock Converse provider signs with: a session's, as temporary credentials are. */
const AWS_SIGNER: AwsTestCredentials = {
  accessKeyId: 'AKIASECURITYRIG00001',
  secretAccessKey: 'security/rig+secret-access-key-0000001',
  sessionToken: 'IQoJb3JpZ2luX2VjSECURITYRIGSESSIONTOKEN0001',
};

export interface SecurityRig {
  gw: RunningGateway;
  up: FakeUpstream;
  close(): Promise<void>;
}

export interface StartedRig extends SecurityRig {
  /** The kinds' credentials (kind-rigs.ts `secrets`): sent to their APIs so far, and held by the gateway only. */
  kindSecrets(): { sent: string[]; held: string[] };
}

/**
 * `failures`: provider failures that open a model's circuit (high where tests fail streams on purpose);
 * `kinds`: a provider of each kind too.
 */
export async function startRig(
  handler: Handler,
  o: { extra?: string; failures?: number; accept?: FakeUpstreamOptions['accept']; kinds?: boolean } = {},
): Promise<StartedRig> {
  const up = await startFakeUpstream({
    handler,
    accept: o.accept,
    aws: { ...AWS_TEST_ACCOUNT, credentials: AWS_SIGNER },
  });
  const spec = securityGateway(up.url, o.extra, o.failures);
  const fronts: KindFront[] = [];
  for (const rig of o.kinds ? KINDS : []) {
    const front = await rig.start(up, ['m'], { aws: AWS_SIGNER });
    fronts.push(front);
    const price = { input: 1, output: 2 };
    const provider = front.provider({ m: { context_window: 128000, max_output_tokens: 4096, price } });
    // A caller's key is one string: not on a provider that signs (Bedrock with SigV4).
    spec.providers[rig.kind] = {
      ...provider,
      byok: rig.byok && provider.api_key !== undefined ? 'optional' : undefined,
    };
  }
  const gw = await startGateway(configOf(spec));
  return {
    gw,
    up,
    kindSecrets: () => {
      const all = fronts.map((f) => f.secrets());
      return { sent: all.flatMap((s) => s.sent), held: all.flatMap((s) => s.held) };
    },
    close: async () => {
      await gw.close();
      for (const front of fronts) await front.close();
      await up.close();
    },
  };
}

export function pathOf(ep: Endpoint): string {
  return ep === 'openai' ? '/v1/chat/completions' : ep === 'responses' ? '/v1/responses' : '/v1/messages';
}

export function headersFor(ep: Endpoint, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    authorization: `Bearer ${GW_KEY}`,
    ...(ep === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {}),
    ...extra,
  };
}

export function bodyFor(ep: Endpoint, provider: PairProvider, o: { stream?: boolean; text?: string } = {}): string {
  const stream = o.stream ? { stream: true } : {};
  const user = { role: 'user', content: o.text ?? 'hello' };
  if (ep === 'responses')
    return JSON.stringify({ model: `${provider}/m`, max_output_tokens: 200, ...stream, input: [user] });
  return JSON.stringify({ model: `${provider}/m`, max_tokens: 200, ...stream, messages: [user] });
}

export function post(base: string, ep: Endpoint, body: string, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(base + pathOf(ep), { method: 'POST', headers: headersFor(ep, extra), body });
}

/**
 * Starts a streaming request over a raw socket, reads until `marker` has arrived (or the first
 * bytes when no marker), then destroys the connection: a user pressing Esc mid-stream.
 */
export function abandonStream(
  base: string,
  ep: Endpoint,
  body: string,
  marker?: string,
  correlationId?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(base + pathOf(ep));
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: headersFor(ep, correlationId ? { 'x-correlation-id': correlationId } : {}),
        agent: false,
      },
      (res) => {
        let got = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          got += c;
          if (!marker || got.includes(marker)) {
            req.destroy();
            resolve(got);
          }
        });
        res.on('end', () => reject(new Error(`stream ended before the marker ${marker}: ${got.slice(0, 300)}`)));
      },
    );
    req.on('error', (e) => {
      if (!req.destroyed) reject(e);
    });
    req.end(body);
  });
}

/** Sends a request and destroys the connection after `ms`, before any response. */
export function abandonBeforeResponse(
  base: string,
  ep: Endpoint,
  body: string,
  ms: number,
  correlationId?: string,
): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(base + pathOf(ep));
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: headersFor(ep, correlationId ? { 'x-correlation-id': correlationId } : {}),
      agent: false,
    });
    req.on('error', () => undefined);
    req.end(body);
    setTimeout(() => {
      req.destroy();
      resolve();
    }, ms);
  });
}

export function requestLines(logs: string[]): any[] {
  return logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
}

export async function eventually<T>(get: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Upstream stream bodies in each format, word by word (usage: 10 in, one out per word). */
export function openaiStream(words: string[], o: { usage?: boolean; done?: boolean; finish?: boolean } = {}): string[] {
  const usage = o.usage !== false;
  const all = answerEvents('openai', reply(words, 'gpt-4o-mini'), { includeUsage: usage });
  if (o.finish !== false) return o.done === false ? all.slice(0, -1) : all;
  // Without the finish chunk there is no usage chunk either.
  const body = all.slice(0, usage ? -3 : -2);
  return o.done === false ? body : [...body, all.at(-1)!];
}

export function anthropicStream(words: string[], o: { stop?: boolean } = {}): string[] {
  const all = answerEvents('anthropic', reply(words, 'claude-test'));
  return o.stop === false ? all.slice(0, -3) : all;
}

/** `terminal: false`: without the closing response.completed. */
export function responsesStream(words: string[], o: { terminal?: boolean } = {}): string[] {
  const all = answerEvents('responses', reply(words, 'gpt-4o-mini'));
  return o.terminal === false ? all.slice(0, -1) : all;
}

/** Whether an upstream call asks for a stream: Gemini and Bedrock say so in their path, the others in the body. */
export function wantsStream(call: { path: string; body?: any }): boolean {
  return call.body?.stream === true || call.path.endsWith(':streamGenerateContent') || isBedrockStream(call.path);
}

/** The caller's last text in an upstream call, whatever its format (Converse's blocks have no `type`). */
export function userTextOf(call: UpstreamCall): string {
  return call.format === 'bedrock' ? bedrockLastUserText(call.body) : lastUserText(call.body);
}

/** `finish: false`: without the closing chunk (its finishReason and usage). */
export function geminiStream(words: string[], o: { finish?: boolean } = {}): string[] {
  const all = answerEvents('gemini', reply(words, 'gemini-2.0-flash'));
  return o.finish === false ? all.slice(0, -1) : all;
}

/** ConverseStream's frames; `finish: false`: without the closing messageStop and metadata. */
export function bedrockStream(words: string[], o: { finish?: boolean } = {}): Buffer[] {
  const all = answerFrames(reply(words, 'm'));
  return o.finish === false ? all.slice(0, -2) : all;
}

/** ConverseStream's exception frame ending a stream (`type` as it names them: throttlingException…). */
export const bedrockException = (message: string, type = 'internalServerException'): Buffer =>
  exceptionFrame(type, message);

/** A complete stream in the upstream path's format. */
export function streamFor(path: string, words: string[]): Chunk[] {
  const format = formatOfPath(path);
  return format === 'openai'
    ? openaiStream(words)
    : format === 'responses'
      ? responsesStream(words)
      : format === 'gemini'
        ? geminiStream(words)
        : format === 'bedrock'
          ? bedrockStream(words)
          : anthropicStream(words);
}

const reply = (words: string[], model: string) => ({
  text: words,
  model,
  usage: { input: 10, output: words.length },
});

/** A handler answering each upstream path with a stream in its format. */
export function streamingHandler(o: { words: string[]; delayMs?: number }): Handler {
  return (req) => ({ kind: 'sse', events: streamFor(req.path, o.words), delayMs: o.delayMs });
}

/** A complete non-stream reply in the upstream path's format. */
export function jsonReply(path: string, text: string) {
  const format = formatOfPath(path);
  const r = { text: [text], usage: { input: 10, output: 2 } };
  const model = { anthropic: 'claude-test', gemini: 'gemini-2.0-flash' }[format as string] ?? 'gpt-4o-mini';
  return answerBody(format, { ...r, model });
}
