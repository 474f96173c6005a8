/**
 * The gateway the client conformance suites (test/clients/*.test.ts) point real client libraries
 * at: an OpenAI chat, an Anthropic and an OpenAI Responses provider on the same mock upstream, each
 * reached through an alias (what people configure) and by its concrete id (model names that look
 * like real ones, since the client libraries switch behaviour on the model name).
 *
 *   team/gpt     → oai/gpt-4o-mini             (OpenAI-format upstream)
 *   team/claude  → ant/claude-sonnet-4-5       (Anthropic-format upstream)
 *   team/resp    → resp/gpt-5-mini             (OpenAI Responses upstream: it keeps conversation state)
 *
 * Keys: CLIENT_KEY may use everything; LIMITED_KEY only team/gpt (team/claude is a 403);
 * BROKE_KEY has a budget too small for any request (429 budget_exceeded before any upstream call).
 */
import { configOf, startGateway, type RunningGateway } from '../helpers/start-gateway.js';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startFakeUpstream, type Reply, type UpstreamCall, type FakeUpstream } from '../helpers/fake-upstream.js';
import { BROKE_KEY, CLIENT_KEY, clientGateway, LIMITED_KEY } from '../helpers/gateway-config.js';
import { responsesOrderViolations, sseMessages } from '../helpers/responses-order.js';
import { recordingFetch } from '../helpers/sse.js';

export { BROKE_KEY, CLIENT_KEY, LIMITED_KEY };

export const OAI_ALIAS = 'team/gpt';
export const ANT_ALIAS = 'team/claude';
export const OAI_MODEL = 'oai/gpt-4o-mini';
export const ANT_MODEL = 'ant/claude-sonnet-4-5';
export const RESP_ALIAS = 'team/resp';
export const RESP_MODEL = 'resp/gpt-5-mini';
/** An OpenAI reasoning model (the strict upstream takes reasoning_effort only on these). */
export const OAI_REASONING_MODEL = 'oai/o4-mini';

/** The three upstream formats, each by alias and by concrete id. */
export const UPSTREAMS = [
  { upstream: 'openai', alias: OAI_ALIAS, concrete: OAI_MODEL },
  { upstream: 'anthropic', alias: ANT_ALIAS, concrete: ANT_MODEL },
  { upstream: 'responses', alias: RESP_ALIAS, concrete: RESP_MODEL },
] as const;
export type UpstreamFormat = (typeof UPSTREAMS)[number]['upstream'];

export function startClientGateway(upstreamUrl: string): Promise<RunningGateway> {
  return startGateway(configOf(clientGateway(upstreamUrl)));
}

/** The raw SSE of every stream a Responses client received through `keepResponsesStreams`. */
const responsesStreams: string[] = [];
/** The `fetch` to give a client of POST /v1/responses: the rig checks the order of every stream it receives. */
export const keepResponsesStreams: typeof fetch = recordingFetch(responsesStreams);

/**
 * The suite's rig for one test file: the strict upstream answering scenarios, the gateway before it.
 * After each test, every Responses stream the gateway sent through `keepResponsesStreams` must follow the
 * documented event order (test/helpers/responses-order.ts).
 */
export function useClientRig(): { readonly up: FakeUpstream; readonly gw: RunningGateway } {
  let up: FakeUpstream | undefined;
  let gw: RunningGateway | undefined;
  beforeAll(async () => {
    up = await startFakeUpstream({ handler: scenarioReply });
    gw = await startClientGateway(up.url);
  });
  afterEach(() => {
    for (const s of responsesStreams.splice(0)) expect(responsesOrderViolations(sseMessages(s)), s).toEqual([]);
  });
  afterAll(async () => {
    await gw?.close();
    await up?.close();
  });
  return {
    get up() {
      return up!;
    },
    get gw() {
      return gw!;
    },
  };
}

// ---------------------------------------------------------------- what the upstream answers

/** The object every structured-output scenario gets back (fits RECIPE_SCHEMA in the tests). */
export const RECIPE = { name: 'pancakes', servings: 4, steps: ['mix', 'fry'] };

/**
 * The fake upstream's handler, scripted by the conversation so every client and format sees
 * the same scenario (anything else gets the upstream's default, `echo: <last user text>`). A
 * Responses request is read from its `input` items (only the new ones when it names a previous response):
 *   last message carries tool results → text `tool said: <results joined by newlines>`
 *   last user text has `fail NNN`     → HTTP NNN in the provider's error format
 *   `parallel`                        → two get_weather calls (Paris, Rome)
 *   `weather`                         → one get_weather call (Paris)
 *   `recipe`                          → RECIPE as the structured output (JSON text, or the forced tool's input)
 *   `think`                           → thinking `step by step` (Anthropic: a signed block; OpenAI: reasoning tokens),
 *   text `thought it through`
 */
export function scenarioReply(req: UpstreamCall): Reply | undefined {
  const msgs = conversationOf(req);
  const results = toolResults(req.format, msgs);
  if (results !== undefined) return { text: `tool said: ${results.join('\n')}` };
  const text = lastUserText(req.format, msgs);
  const fail = /fail (\d{3})/.exec(text);
  if (fail) return { kind: 'error', status: Number(fail[1]) };
  if (text.includes('parallel'))
    return {
      toolCalls: [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_weather', args: { city: 'Rome' } },
      ],
    };
  if (text.includes('weather')) return { toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] };
  if (text.includes('recipe')) return { json: RECIPE };
  if (text.includes('think')) return { thinking: 'step by step', text: 'thought it through' };
  return undefined;
}

/** The messages of a chat or messages body; a Responses body's input items (a string input is one user message). */
function conversationOf(req: UpstreamCall): any[] {
  if (req.format !== 'responses') return Array.isArray(req.body?.messages) ? req.body.messages : [];
  const input = req.body?.input;
  return typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
}

const TEXT_PARTS = ['text', 'input_text', 'output_text'];

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: any) => (TEXT_PARTS.includes(p?.type) && typeof p.text === 'string' ? p.text : '')).join('');
}

function lastUserText(format: UpstreamCall['format'], msgs: any[]): string {
  const users = msgs.filter((m) => m?.role === 'user');
  if (format !== 'anthropic') return textOf(users.at(-1)?.content);
  // Anthropic: the last user message with text (a tool-result turn has none).
  return (
    [...users]
      .reverse()
      .map((m) => textOf(m.content))
      .find((t) => t !== '') ?? ''
  );
}

/** The results the last message hands back to the model, or undefined when it hands back none. */
function toolResults(format: UpstreamCall['format'], msgs: any[]): string[] | undefined {
  if (format === 'responses') {
    let i = msgs.length;
    while (i > 0 && msgs[i - 1]?.type === 'function_call_output') i--;
    return i < msgs.length ? msgs.slice(i).map((m) => textOf(m.output)) : undefined;
  }
  if (format === 'openai') {
    let i = msgs.length;
    while (i > 0 && msgs[i - 1]?.role === 'tool') i--;
    return i < msgs.length ? msgs.slice(i).map((m) => textOf(m.content)) : undefined;
  }
  const last = msgs.at(-1);
  const blocks =
    last?.role === 'user' && Array.isArray(last.content)
      ? last.content.filter((b: any) => b?.type === 'tool_result')
      : [];
  return blocks.length > 0 ? blocks.map((b: any) => textOf(b.content)) : undefined;
}

/**
 * The conversation an upstream call carried, as `role: text` lines without the system prompt; a
 * Responses call's input items as sent (an item_reference as `item_reference: <id>`).
 */
export function upstreamTurns(call: UpstreamCall | undefined): string[] {
  return conversationOf(call!)
    .filter((m) => m.role !== 'system' && m.role !== 'developer')
    .map((m) => (m.type === 'item_reference' ? `item_reference: ${m.id}` : `${m.role}: ${textOf(m.content)}`));
}

/**
 * The last chat request the upstream accepted carried `system` in its format's own place (Responses:
 * `instructions`, or a leading system / developer item as a Responses caller's own input has it).
 */
export function expectSystemPrompt(up: FakeUpstream, upstream: UpstreamFormat, system: string): void {
  const req = up.accepted.at(-1);
  expect(req?.format).toBe(upstream);
  if (upstream === 'responses') {
    const first = req?.body.input[0];
    const leading = /^(system|developer)$/.test(first?.role) ? textOf(first.content) : undefined;
    expect(req?.body.instructions ?? leading).toBe(system);
  } else if (upstream === 'openai') {
    expect(req?.body.messages[0]).toMatchObject({ role: expect.stringMatching(/^(system|developer)$/) });
    expect(textOf(req?.body.messages[0].content)).toBe(system);
  } else {
    expect(textOf(req?.body.system)).toBe(system);
  }
}
