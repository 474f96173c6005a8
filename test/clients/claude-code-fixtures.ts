/**
 * Replaying what Claude Code really sends (test/fixtures/claude-code/<version>/<scenario>/NN-*.json,
 * captured with test/tools/capture-claude-code.mjs) through the gateway to the strict upstream.
 *
 * Each captured request is sent as captured — path (`?beta=true`), anthropic-version,
 * anthropic-beta, user-agent and x-stainless headers — with the gateway key instead of the scrubbed
 * one and the model swapped for a configured name on the chosen upstream format:
 *
 *   captured model            Anthropic-format upstream       OpenAI-format upstream
 *   alias-like (team/claude)  team/claude → ant/claude-sonnet-4-5   team/gpt → oai/gpt-5-mini
 *   Claude id (claude-…)      ant/claude-sonnet-4-5           oai/gpt-5-mini
 *
 * gpt-5-mini: Claude Code always asks for thinking, which only reasoning models take.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { assertAnthropicStreamOrder } from '../helpers/anthropic-order.js';
import { readSse } from '../helpers/sse.js';
import { loadTestConfig, startGateway, type RunningGateway } from '../helpers/start-gateway.js';
import type { Content, FakeUpstream, UpstreamCall, WireFormat } from '../helpers/fake-upstream.js';

/** Replay steps run against one gateway and its strict upstream. */
export interface ReplayContext {
  gw: RunningGateway;
  up: FakeUpstream;
  /** Every target the gateway serves: the model list must name them all. */
  targets: ReplayTarget[];
}

/**
 * Where a replay sends Claude Code: a model (by alias and by concrete id) on an upstream of `format`, reached
 * directly or through a provider kind's front (claude-code-kinds.test.ts).
 */
export interface ReplayTarget {
  /** The format the strict upstream is spoken to in (behind any front). */
  format: WireFormat;
  alias: string;
  concrete: string;
  /** The model the strict upstream is asked for. */
  upstreamModel: string;
  /**
   * Checks what the format's checks cannot: how the call reached the strict upstream (`got`) from the caller's
   * bytes (`sentRaw`) — the gateway's credential, a kind's edits.
   */
  expectRoute(got: UpstreamCall, c: Captured, sentRaw: string): void;
  /** count_tokens: asked of the strict upstream at this path (Anthropic's: its bytes passed through), or local. */
  countPath?: string;
}

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');
export const CC_KEY = 'claude-code-replay-key-0001';
export const ANT_SECRET = 'sk-ant-cc-replay-provider-000222';
export const OAI_SECRET = 'sk-oai-cc-replay-provider-000111';
export const RESP_SECRET = 'sk-resp-cc-replay-provider-000333';
/** An alias Claude Code's model discovery keeps (it lists only ids starting with claude or anthropic). */
export const DISCOVERABLE_ALIAS = 'claude/sonnet';

/** `responses`: an OpenAI Responses-only model (`api: openai-responses`). */
export type UpstreamFormat = 'anthropic' | 'openai' | 'responses';
export const TARGETS: Record<UpstreamFormat, { alias: string; concrete: string; upstreamModel: string }> = {
  anthropic: { alias: 'team/claude', concrete: 'ant/claude-sonnet-4-5', upstreamModel: 'claude-sonnet-4-5' },
  openai: { alias: 'team/gpt', concrete: 'oai/gpt-5-mini', upstreamModel: 'gpt-5-mini' },
  responses: { alias: 'team/codex', concrete: 'resp/gpt-5-codex', upstreamModel: 'gpt-5-codex' },
};

/** The three upstream formats reached directly, with the replay gateway's keys. */
export const DIRECT_TARGETS: Record<UpstreamFormat, ReplayTarget> = {
  anthropic: {
    ...TARGETS.anthropic,
    format: 'anthropic',
    expectRoute: (got, c, sentRaw) => expectPassThrough(got, c, sentRaw, JSON.parse(sentRaw).model),
    countPath: '/v1/messages/count_tokens',
  },
  openai: { ...TARGETS.openai, format: 'openai', expectRoute: (got) => expectBearer(got, OAI_SECRET) },
  responses: {
    ...TARGETS.responses,
    format: 'responses',
    expectRoute: (got) => expectBearer(got, RESP_SECRET),
    countPath: '/v1/responses/input_tokens',
  },
};

function expectBearer(got: UpstreamCall, secret: string): void {
  expect(got.headers.authorization).toBe(`Bearer ${secret}`);
  expect(JSON.stringify(got.headers)).not.toContain(CC_KEY);
}

export function replayConfigYaml(upstreamUrl: string): string {
  return `
server: { host: 127.0.0.1, port: 0, body_limit: 1mb, shutdown_grace_ms: 2000 }
routing: { retry: { max_retries: 0 }, cooldown: { failures: 1000, cooldown_ms: 1 } }
providers:
  ant:
    api: anthropic
    base_url: ${upstreamUrl}
    api_key: ${ANT_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 }
    models:
      claude-sonnet-4-5: { context_window: 200000, max_output_tokens: 64000 }
  oai:
    api: openai
    base_url: ${upstreamUrl}/v1
    api_key: ${OAI_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 }
    models:
      gpt-5-mini: { context_window: 400000, max_output_tokens: 128000 }
  resp:
    api: openai-responses
    base_url: ${upstreamUrl}/v1
    api_key: ${RESP_SECRET}
    timeouts: { connect_ms: 2000, first_byte_ms: 5000, total_ms: 15000 }
    models:
      gpt-5-codex: { context_window: 400000, max_output_tokens: 128000 }
aliases:
  team/claude: { targets: [ ant/claude-sonnet-4-5 ] }
  team/gpt: { targets: [ oai/gpt-5-mini ] }
  team/codex: { targets: [ resp/gpt-5-codex ] }
  ${DISCOVERABLE_ALIAS}: { targets: [ ant/claude-sonnet-4-5 ] }
roles:
  dev: { models: ["*"] }
keys:
  - { id: cc, key: ${CC_KEY}, role: dev }
`;
}

export function startReplayGateway(upstreamUrl: string): Promise<RunningGateway> {
  return startGateway(loadTestConfig(replayConfigYaml(upstreamUrl)));
}

// ---------------------------------------------------------------- fixtures

export interface Captured {
  file: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
}

export interface Scenario {
  version: string;
  name: string;
  requests: Captured[];
}

export function loadScenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const version of readdirSync(FIXTURES).sort()) {
    for (const name of readdirSync(join(FIXTURES, version)).sort()) {
      const dir = join(FIXTURES, version, name);
      const requests = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<Captured, 'file'>) }));
      out.push({ version, name, requests });
    }
  }
  return out;
}

/** The gateway name a captured model becomes on a target. */
export function modelFor(captured: string, target: Pick<ReplayTarget, 'alias' | 'concrete'>): string {
  return /^claude-/.test(captured) ? target.concrete : target.alias;
}

const DROP_HEADERS = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'x-api-key', 'authorization']);

/** Sends one captured request to the gateway as Claude Code did, the model swapped. */
export async function replay(
  gw: RunningGateway,
  c: Captured,
  model?: string,
  edit?: (body: any) => void,
): Promise<{ res: Response; sentRaw: string }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.headers)) if (!DROP_HEADERS.has(k)) headers[k] = v;
  // Claude Code sends the key the way it was given: ANTHROPIC_API_KEY as x-api-key, ANTHROPIC_AUTH_TOKEN as Bearer.
  if ('authorization' in c.headers) headers.authorization = `Bearer ${CC_KEY}`;
  else headers['x-api-key'] = CC_KEY;
  let sentRaw = '';
  if (c.body !== null && c.body !== undefined) {
    const body = structuredClone(c.body);
    if (model !== undefined) body.model = model;
    edit?.(body);
    sentRaw = JSON.stringify(body);
  }
  const res = await fetch(gw.url + c.path, { method: c.method, headers, body: sentRaw === '' ? undefined : sentRaw });
  return { res, sentRaw };
}

// ---------------------------------------------------------------- the upstream's answers

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: any) =>
      p?.type === 'text' && typeof p.text === 'string' ? p.text : p?.type === 'tool_result' ? textOf(p.content) : '',
    )
    .join('');
}

export const READ_CALL_ID = 'toolu_rec_01';
export const PLAIN_REPLY = 'Hello from the strict upstream.';

/**
 * What a model would answer Claude Code in the captured scenarios, in either format:
 * a tool result → `tool said: <result>`; "Read the file <path>" with Read offered → a Read call;
 * otherwise PLAIN_REPLY. On Anthropic, thinking asked → a thinking block first.
 */
export function claudeCodeReply(req: UpstreamCall): Content | undefined {
  const msgs: any[] =
    req.format === 'bedrock'
      ? converseTurns(req.body?.messages)
      : Array.isArray(req.body?.messages)
        ? req.body.messages
        : req.format === 'gemini'
          ? geminiTurns(req.body?.contents)
          : responsesTurns(req.body?.input);
  // Claude on Bedrock Converse is asked for thinking in additionalModelRequestFields.
  const asked = req.format === 'bedrock' ? req.body?.additionalModelRequestFields?.thinking : req.body?.thinking;
  const thinking =
    ['anthropic', 'bedrock'].includes(req.format) && ['enabled', 'adaptive'].includes(asked?.type)
      ? 'Short answer wanted.'
      : undefined;
  const last = msgs.at(-1);
  const results =
    req.format !== 'anthropic'
      ? last?.role === 'tool'
        ? [textOf(last.content)]
        : []
      : last?.role === 'user' && Array.isArray(last.content)
        ? last.content.filter((b: any) => b?.type === 'tool_result').map((b: any) => textOf(b.content))
        : [];
  if (results.length > 0) return { thinking, text: `tool said: ${results.join('\n')}` };
  const users = msgs.filter((m) => m?.role === 'user');
  const prompt = users.map((m) => textOf(m.content)).join('\n');
  const wanted = /Read the file (\S+?)(?=[\s,;]|\.(?:\s|$)|$)/.exec(prompt);
  const tools: any[] = [req.body?.tools, req.body?.toolConfig?.tools].find(Array.isArray) ?? [];
  const names = tools.flatMap(
    (t) => t?.functionDeclarations?.map((f: any) => f?.name) ?? [t?.name ?? t?.function?.name ?? t?.toolSpec?.name],
  );
  const offersRead = names.includes('Read');
  if (wanted && offersRead)
    return {
      thinking,
      text: 'I will read it.',
      toolCalls: [{ name: 'Read', args: { file_path: wanted[1] }, id: READ_CALL_ID }],
    };
  return { thinking, text: PLAIN_REPLY };
}

/** Gemini `contents` as chat-like turns: texts by role, a turn of function responses as a `tool` turn. */
function geminiTurns(contents: unknown): any[] {
  if (!Array.isArray(contents)) return [];
  return contents.map((c: any) => {
    const parts: any[] = Array.isArray(c?.parts) ? c.parts : [];
    const responses = parts.filter((p) => p?.functionResponse !== undefined);
    if (responses.length > 0)
      return { role: 'tool', content: responses.map((p) => JSON.stringify(p.functionResponse.response)).join('\n') };
    return { role: c?.role === 'model' ? 'assistant' : 'user', content: parts.map((p) => p?.text ?? '').join('') };
  });
}

/** Converse `messages` as chat-like turns: texts by role, a turn of toolResults as a `tool` turn. */
function converseTurns(messages: unknown): any[] {
  if (!Array.isArray(messages)) return [];
  const texts = (blocks: any[]): string => blocks.map((b) => b?.text ?? '').join('');
  return messages.map((m: any) => {
    const blocks: any[] = Array.isArray(m?.content) ? m.content : [];
    const results = blocks.filter((b) => b?.toolResult !== undefined);
    if (results.length > 0)
      return { role: 'tool', content: results.map((b) => texts(b.toolResult.content ?? [])).join('\n') };
    return { role: m?.role, content: texts(blocks) };
  });
}

/** A Responses `input` as chat-like turns: messages with their text, tool outputs as `tool` turns. */
function responsesTurns(input: unknown): any[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) return [];
  const out: any[] = [];
  for (const it of input) {
    if (it?.type === 'function_call_output') out.push({ role: 'tool', content: it.output });
    else if (it?.role !== undefined) {
      const parts = typeof it.content === 'string' ? [{ text: it.content }] : (it.content ?? []);
      out.push({ role: it.role, content: parts.map((p: any) => p?.text ?? '').join('') });
    }
  }
  return out;
}

// ---------------------------------------------------------------- checks

/** Every text the caller sent in one message of a captured request, whatever its role. */
export function capturedTexts(body: any): string[] {
  const out: string[] = [];
  for (const m of body?.messages ?? []) {
    if (typeof m.content === 'string') out.push(m.content);
    else for (const b of m.content ?? []) if (b?.type === 'text') out.push(b.text);
  }
  return out.filter((t) => t.trim() !== '');
}

/** The 200 stream the caller got is in Anthropic order and carries no error; returns its blocks. */
export async function expectAnthropicStream(res: Response): Promise<{ blocks: any[]; stop: string; model: string }> {
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = await readSse(res);
  assertAnthropicStreamOrder(events);
  const parsed = events.filter((e) => e.event !== 'ping').map((e) => JSON.parse(e.data));
  expect(
    parsed.find((d) => d.type === 'error'),
    'no in-stream error',
  ).toBeUndefined();
  const blocks: any[] = [];
  for (const d of parsed) {
    if (d.type === 'content_block_start') blocks.push({ ...d.content_block, json: '' });
    if (d.type === 'content_block_delta') {
      const b = blocks[d.index];
      if (d.delta.type === 'text_delta') b.text += d.delta.text;
      if (d.delta.type === 'thinking_delta') b.thinking += d.delta.thinking;
      if (d.delta.type === 'input_json_delta') b.json += d.delta.partial_json;
    }
  }
  for (const b of blocks) if (b.type === 'tool_use') b.input = b.json === '' ? {} : JSON.parse(b.json);
  const delta = parsed.find((d) => d.type === 'message_delta');
  return { blocks, stop: delta.delta.stop_reason, model: parsed[0].message.model };
}

/** The thinking budget of an effort (README, "Pass-through"; high when none is named). */
const EFFORT_BUDGETS: Record<string, number> = { low: 1024, medium: 4096, high: 16384, xhigh: 32768, max: 65536 };

/**
 * Claude Code's adaptive thinking (sent by alias) as the gateway fits it to the replays' Claude model, Sonnet 4.5,
 * which refuses adaptive thinking and an effort (README, "Pass-through"): the effort's budget inside `max_tokens`,
 * the effort left out (Claude Code's `output_config` holds only it). Other bodies as they are.
 */
export function thinkingFitted(sent: any): any {
  if (sent.thinking?.type !== 'adaptive') return sent;
  const { output_config: config, ...rest } = sent;
  expect(Object.keys(config ?? {}).filter((k) => k !== 'effort')).toEqual([]);
  const budget = Math.min(EFFORT_BUDGETS[config?.effort ?? 'high'], sent.max_tokens - 1);
  return { ...rest, thinking: { type: 'enabled', budget_tokens: budget } };
}

/** The fit named to the caller: the thinking mode rewritten, the effort dropped; nothing for other bodies. */
export function expectThinkingFitNamed(res: Response, sent: any): void {
  const adaptive = sent.thinking?.type === 'adaptive';
  expect(res.headers.get('x-gateway-rewritten-fields')).toBe(adaptive ? 'thinking' : null);
  const dropped = (res.headers.get('x-gateway-dropped-fields') ?? '').split(', ');
  expect(dropped.includes('output_config.effort')).toBe(adaptive && sent.output_config?.effort !== undefined);
}

/**
 * What reached the upstream on pass-through: the caller's bytes but for the model (and the thinking fitted to the
 * model, thinkingFitted, spliced in place), its headers kept, our credential.
 */
export function expectPassThrough(got: UpstreamCall, c: Captured, sentRaw: string, sentModel: string): void {
  const i = sentRaw.indexOf(`"model":${JSON.stringify(sentModel)}`);
  expect(i).toBeGreaterThanOrEqual(0);
  let expected =
    sentRaw.slice(0, i) +
    `"model":${JSON.stringify(TARGETS.anthropic.upstreamModel)}` +
    sentRaw.slice(i + `"model":${JSON.stringify(sentModel)}`.length);
  const sent = JSON.parse(sentRaw);
  if (sent.thinking?.type === 'adaptive') {
    const config = `"output_config":${JSON.stringify(sent.output_config)}`;
    expected = expected
      .replace(
        `"thinking":${JSON.stringify(sent.thinking)}`,
        `"thinking":${JSON.stringify(thinkingFitted(sent).thinking)}`,
      )
      .replace(expected.includes(`${config},`) ? `${config},` : `,${config}`, '');
  }
  expect(got.rawBody === expected, 'the upstream got the caller’s bytes with only the documented edits').toBe(true);
  expect(got.headers['anthropic-version']).toBe(c.headers['anthropic-version']);
  expect(got.headers['anthropic-beta']).toBe(c.headers['anthropic-beta']);
  expect(got.headers['x-api-key']).toBe(ANT_SECRET);
  expect(JSON.stringify(got.headers)).not.toContain(CC_KEY);
}

/**
 * What reached an OpenAI upstream: a request it accepted, carrying every text and tool the caller sent (`sent`: the
 * body sent).
 */
export function expectTranslated(got: UpstreamCall, sent: any, target: ReplayTarget): void {
  const responses = target.format === 'responses';
  const gemini = target.format === 'gemini';
  const method = sent.stream === true ? 'streamGenerateContent' : 'generateContent';
  expect(got.path).toBe(
    gemini ? `/v1beta/models/${target.upstreamModel}:${method}` : responses ? '/v1/responses' : '/v1/chat/completions',
  );
  expect(got.status, got.error).toBe(200);
  if (!gemini) {
    expect(got.body.model).toBe(target.upstreamModel);
    expect(got.body.stream === true).toBe(sent.stream === true);
  }
  if (sent.stream === true && target.format === 'openai')
    expect(got.body.stream_options).toMatchObject({ include_usage: true });
  const upstreamText = JSON.stringify(
    gemini
      ? [got.body.systemInstruction, got.body.contents]
      : responses
        ? [got.body.instructions, got.body.input]
        : got.body.messages,
  );
  for (const t of capturedTexts(sent))
    expect(upstreamText.includes(JSON.stringify(t).slice(1, -1)), `text reached the upstream: ${t.slice(0, 60)}…`).toBe(
      true,
    );
  const sys = typeof sent.system === 'string' ? [sent.system] : (sent.system ?? []).map((b: any) => b.text);
  for (const t of sys)
    expect(
      upstreamText.includes(JSON.stringify(t).slice(1, -1)),
      `system text reached the upstream: ${t.slice(0, 60)}…`,
    ).toBe(true);
  const tools: any[] = got.body.tools ?? [];
  expect(
    gemini
      ? tools.flatMap((t) => (t.functionDeclarations ?? []).map((f: any) => f.name))
      : tools.map((t) => (responses ? t.name : t.function?.name)),
  ).toEqual((sent.tools ?? []).map((t: any) => t.name));
}

// ---------------------------------------------------------------- one scenario

const isMessages = (c: Captured) => c.method === 'POST' && c.path.split('?')[0] === '/v1/messages';
const isCount = (c: Captured) => c.method === 'POST' && c.path.split('?')[0] === '/v1/messages/count_tokens';

/** Replays a scenario's requests in order on one target; each messages request also as JSON (stream off). */
export async function replayScenario(ctx: ReplayContext, requests: Captured[], target: ReplayTarget): Promise<void> {
  for (const c of requests) {
    if (isMessages(c)) {
      await replayMessages(ctx, c, target, true);
      await replayMessages(ctx, c, target, false);
    } else if (isCount(c)) await replayCount(ctx, c, target);
    else if (c.method === 'GET' && c.path.startsWith('/v1/models')) await replayModels(ctx, c);
    else {
      // The start-up probe (HEAD /): any answer but a server error will do.
      const { res } = await replay(ctx.gw, c);
      expect(res.status).toBeLessThan(500);
    }
  }
}

async function replayMessages(
  { gw, up }: ReplayContext,
  c: Captured,
  target: ReplayTarget,
  stream: boolean,
): Promise<void> {
  const model = modelFor(c.body.model, target);
  up.reset();
  const { res, sentRaw } = await replay(gw, c, model, stream ? undefined : (b) => delete b.stream);
  const at = `${c.file}${stream ? '' : ' (stream off)'}`;
  const text = res.status === 200 ? '' : await res.text();
  expect(res.status, `${at}: ${text}`).toBe(200);
  expect(res.headers.get('x-gateway-model')).toBe(target.concrete);
  if (target.format === 'anthropic') expectThinkingFitNamed(res, JSON.parse(sentRaw));
  let blocks: any[];
  let stop: string;
  let named: string;
  if (stream) ({ blocks, stop, model: named } = await expectAnthropicStream(res));
  else {
    const msg = (await res.json()) as any;
    expect(msg, at).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: expect.any(Array),
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
    });
    ({ content: blocks, stop_reason: stop, model: named } = msg);
  }
  // Claude Code (2.1.197) keeps an answer's signed thinking only when it names the model asked for.
  expect(named, at).toBe(model);
  expect(up.received, at).toHaveLength(1);
  const got = up.received[0];
  if (target.format === 'anthropic') {
    expect(got.status, got.error).toBe(200);
    expect(got.path).toBe('/v1/messages');
  } else expectTranslated(got, JSON.parse(sentRaw), target);
  target.expectRoute(got, c, sentRaw);
  // The scenario's answer reached Claude Code intact.
  const call = blocks.find((b) => b.type === 'tool_use');
  if (call) {
    expect(stop).toBe('tool_use');
    expect(call).toMatchObject({
      // Gemini's calls have no id: the gateway makes one (carrying Gemini's thought signature).
      id: target.format === 'gemini' ? expect.stringMatching(/^call_gs_/) : READ_CALL_ID,
      name: 'Read',
      input: { file_path: expect.stringMatching(/notes\.txt$/) },
    });
  } else {
    expect(stop).toBe('end_turn');
    expect(
      blocks
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join(''),
      at,
    ).not.toBe('');
  }
}

async function replayCount({ gw, up }: ReplayContext, c: Captured, target: ReplayTarget): Promise<void> {
  const model = modelFor(c.body.model, target);
  up.reset();
  const { res, sentRaw } = await replay(gw, c, model);
  const body = (await res.json()) as any;
  expect(res.status, `${c.file}: ${JSON.stringify(body)}`).toBe(200);
  expect(body.input_tokens).toBeGreaterThan(0);
  if (target.countPath === undefined) {
    expect(res.headers.get('x-gateway-token-count')).toMatch(/^local-/);
    expect(up.received).toEqual([]);
    return;
  }
  // The provider's own counter: Anthropic's gets the caller's bytes, OpenAI's the request translated.
  expect(res.headers.get('x-gateway-token-count')).toBe('upstream');
  expect(up.received).toHaveLength(1);
  expect(up.received[0].path).toBe(target.countPath);
  expect(up.received[0].status, up.received[0].error).toBe(200);
  if (target.format === 'anthropic') target.expectRoute(up.received[0], c, sentRaw);
}

/** Claude Code's gateway model discovery: GET /v1/models?limit=1000 read in the Anthropic shape. */
async function replayModels({ gw, targets }: ReplayContext, c: Captured): Promise<void> {
  const { res } = await replay(gw, c);
  expect(res.status).toBe(200);
  const page = (await res.json()) as any;
  expect(page).toMatchObject({ has_more: false, first_id: expect.any(String), last_id: expect.any(String) });
  for (const m of page.data)
    expect(m).toMatchObject({
      type: 'model',
      id: expect.any(String),
      display_name: expect.any(String),
      created_at: expect.any(String),
    });
  const ids = page.data.map((m: any) => m.id);
  expect(ids).toEqual(expect.arrayContaining([...targets.flatMap((t) => [t.alias, t.concrete]), DISCOVERABLE_ALIAS]));
  // The CLI keeps only ids starting with claude or anthropic (2.1.197): the alias named for it survives.
  expect(ids.filter((id: string) => /^(claude|anthropic)/i.test(id))).toEqual([DISCOVERABLE_ALIAS]);
}

/**
 * `<version>/<scenario>/<format or kind>` cases that wait for a gateway fix: left out of claude-code-replay.test.ts
 * and claude-code-kinds.test.ts until they pass.
 */
export const PENDING = new Set<string>([]);
