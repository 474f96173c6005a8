/**
 * A fake AWS Bedrock runtime on 127.0.0.1 for the bedrock provider kind's tests: as strict as the
 * real Converse API where the gateway could go wrong, recording every call, answering as the test
 * says. Shares no code with src/.
 *
 *   POST /model/{modelId}/converse          a Converse response
 *   POST /model/{modelId}/converse-stream   the same as AWS event-stream frames (CRCs included):
 *                                           messageStart, blocks, messageStop, metadata
 *   GET /async-invoke                       an empty ListAsyncInvokes answer (recorded with model '')
 *   anything else                           404 in AWS's error shape
 * Auth: `Authorization: Bearer {apiKey}`, or SigV4 (service bedrock, the fake's region) recomputed
 * with @smithy/signature-v4 from the known test credentials over the headers it names and the
 * body received (whose SHA-256 must be the one signed): anything else is 403 with AWS's exception
 * name in `x-amzn-errortype`. Refused with 400 ValidationException: unknown fields, roles that do
 * not alternate from user, a toolResult no toolUse of the turn before asked for (or a toolUse left
 * unanswered), tool blocks without a toolConfig.
 *
 *   const up = await startBedrockUpstream({ region, credentials, apiKey })
 *   up.setHandler((call) => Answer | ErrorAnswer | undefined)   undefined: "You said: <last user text>"
 */

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsRefusal as Refusal, type AwsTestCredentials, bedrockAuthCheck } from './aws-auth.js';

export type { AwsTestCredentials } from './aws-auth.js';
import { eventFrame, exceptionFrame } from './bedrock-frames.js';

type Obj = Record<string, unknown>;

export interface BedrockCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: Obj;
  /** The model id, URL-decoded. */
  model: string;
  stream: boolean;
  status?: number;
}

export type AnswerBlock =
  | { text: string }
  | { reasoning: string; signature: string }
  | { toolUse: { toolUseId: string; name: string; input: Obj } };
export interface Answer {
  blocks: AnswerBlock[];
  stopReason?: string;
  usage?: Obj;
  /** A stream only: this exception frame instead of messageStop. */
  exceptionAfter?: { type: string; message: string };
}
export interface ErrorAnswer {
  error: { status: number; type: string; message: string; headers?: Record<string, string> };
}
export type BedrockHandler = (call: BedrockCall) => Answer | ErrorAnswer | undefined;

export interface BedrockUpstream {
  url: string;
  received: BedrockCall[];
  setHandler(h: BedrockHandler | undefined): void;
  close(): Promise<void>;
}

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream)$/;
const TOP = new Set(['messages', 'system', 'inferenceConfig', 'toolConfig', 'additionalModelRequestFields']);
const BLOCK = new Set(['text', 'image', 'toolUse', 'toolResult', 'reasoningContent']);
const INFERENCE = new Set(['maxTokens', 'temperature', 'topP', 'stopSequences']);

export async function startBedrockUpstream(opts: {
  region: string;
  credentials: AwsTestCredentials;
  apiKey: string;
}): Promise<BedrockUpstream> {
  const received: BedrockCall[] = [];
  let handler: BedrockHandler | undefined;
  const authenticate = bedrockAuthCheck(opts);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      void (async () => {
        try {
          await authenticate(req.method ?? 'GET', req.url ?? '/', req.headers, raw);
          const url = new URL(req.url ?? '/', 'http://127.0.0.1');
          if (req.method === 'GET' && url.pathname === '/async-invoke') {
            received.push({
              path: req.url ?? '',
              headers: req.headers,
              body: {},
              model: '',
              stream: false,
              status: 200,
            });
            return json(res, 200, { asyncInvokeSummaries: [] });
          }
          const m = ROUTE.exec(url.pathname);
          if (req.method !== 'POST' || !m) throw new Refusal(404, 'UnknownOperationException', 'Not found');
          const body = parseBody(raw);
          const call: BedrockCall = {
            path: req.url ?? '',
            headers: req.headers,
            body,
            model: decodeURIComponent(m[1]),
            stream: m[2] === 'converse-stream',
          };
          received.push(call);
          checkRequest(body);
          const answer = handler?.(call) ?? echo(body);
          if ('error' in answer) {
            call.status = answer.error.status;
            const e = answer.error;
            return json(res, e.status, { message: e.message }, { 'x-amzn-errortype': `${e.type}:`, ...e.headers });
          }
          call.status = 200;
          if (call.stream) return streamAnswer(res, answer);
          json(res, 200, converseAnswer(answer));
        } catch (err) {
          const r = err instanceof Refusal ? err : new Refusal(500, 'InternalServerException', String(err));
          json(res, r.status, { message: r.message }, { 'x-amzn-errortype': `${r.type}:` });
        }
      })();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    setHandler: (h) => {
      handler = h;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseBody(raw: Buffer): Obj {
  try {
    const v: unknown = JSON.parse(raw.toString('utf8'));
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Obj;
  } catch {
    // refused below
  }
  throw new Refusal(400, 'SerializationException', 'The body is not a JSON object.');
}

function invalid(message: string): Refusal {
  return new Refusal(400, 'ValidationException', message);
}

/** What the real Converse API refuses, where a gateway could send it. */
function checkRequest(body: Obj): void {
  for (const k of Object.keys(body)) if (!TOP.has(k)) throw invalid(`Unknown field: ${k}`);
  const messages = body.messages as Array<{ role: string; content: Obj[] }>;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid('messages must not be empty');
  let asked: string[] = [];
  let usesTools = false;
  messages.forEach((msg, i) => {
    for (const k of Object.keys(msg))
      if (k !== 'role' && k !== 'content') throw invalid(`Unknown field: messages.${i}.${k}`);
    if (msg.role !== (i % 2 === 0 ? 'user' : 'assistant'))
      throw invalid('A conversation must alternate between user and assistant roles, starting with user.');
    const answered: string[] = [];
    const calls: string[] = [];
    for (const block of msg.content) {
      const keys = Object.keys(block);
      if (keys.length !== 1 || !BLOCK.has(keys[0])) throw invalid(`Unknown content block: ${keys.join(',')}`);
      const b = block[keys[0]] as Obj;
      if (keys[0] === 'toolUse') {
        usesTools = true;
        if (msg.role !== 'assistant') throw invalid('toolUse only in assistant turns');
        if (typeof b.input !== 'object' || b.input === null) throw invalid('toolUse.input must be an object');
        calls.push(String(b.toolUseId));
      }
      if (keys[0] === 'toolResult') {
        usesTools = true;
        if (!asked.includes(String(b.toolUseId)))
          throw invalid(`The toolResult ${String(b.toolUseId)} does not match a toolUse of the previous turn.`);
        if (b.status !== 'success' && b.status !== 'error') throw invalid('toolResult.status must be success or error');
        answered.push(String(b.toolUseId));
      }
      if (keys[0] === 'reasoningContent') {
        const r = b.reasoningText as Obj | undefined;
        if (b.redactedContent === undefined && typeof r?.signature !== 'string')
          throw invalid('reasoningContent needs a signature');
      }
    }
    const unanswered = asked.filter((id) => !answered.includes(id));
    if (unanswered.length > 0) throw invalid(`toolUse ${unanswered[0]} has no toolResult in the next turn.`);
    asked = calls;
  });
  const inference = (body.inferenceConfig ?? {}) as Obj;
  for (const k of Object.keys(inference)) if (!INFERENCE.has(k)) throw invalid(`Unknown field: inferenceConfig.${k}`);
  const toolConfig = body.toolConfig as Obj | undefined;
  if (usesTools && !toolConfig) throw invalid('toolConfig is required when messages hold toolUse or toolResult.');
  for (const t of (toolConfig?.tools ?? []) as Obj[]) {
    const spec = t.toolSpec as Obj | undefined;
    if (!spec || typeof spec.name !== 'string' || typeof (spec.inputSchema as Obj)?.json !== 'object')
      throw invalid('tools[].toolSpec needs name and inputSchema.json');
  }
}

function echo(body: Obj): Answer {
  const messages = body.messages as Array<{ content: Obj[] }>;
  const last = messages[messages.length - 1].content.find((b) => typeof b.text === 'string');
  return { blocks: [{ text: `You said: ${String(last?.text ?? '')}` }] };
}

const DEFAULT_USAGE = { inputTokens: 7, outputTokens: 5, totalTokens: 12 };

function stopOf(a: Answer): string {
  return a.stopReason ?? (a.blocks.some((b) => 'toolUse' in b) ? 'tool_use' : 'end_turn');
}

function converseAnswer(a: Answer): Obj {
  const content = a.blocks.map((b) =>
    'text' in b
      ? { text: b.text }
      : 'reasoning' in b
        ? { reasoningContent: { reasoningText: { text: b.reasoning, signature: b.signature } } }
        : { toolUse: b.toolUse },
  );
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: stopOf(a),
    usage: a.usage ?? DEFAULT_USAGE,
    metrics: { latencyMs: 1 },
  };
}

function streamAnswer(res: ServerResponse, a: Answer): void {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
  res.write(eventFrame('messageStart', { role: 'assistant' }));
  a.blocks.forEach((b, i) => {
    if ('toolUse' in b) {
      const { toolUseId, name, input } = b.toolUse;
      res.write(eventFrame('contentBlockStart', { contentBlockIndex: i, start: { toolUse: { toolUseId, name } } }));
      const json = JSON.stringify(input);
      const half = Math.floor(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)])
        res.write(eventFrame('contentBlockDelta', { contentBlockIndex: i, delta: { toolUse: { input: part } } }));
    } else if ('reasoning' in b) {
      res.write(
        eventFrame('contentBlockDelta', { contentBlockIndex: i, delta: { reasoningContent: { text: b.reasoning } } }),
      );
      res.write(
        eventFrame('contentBlockDelta', {
          contentBlockIndex: i,
          delta: { reasoningContent: { signature: b.signature } },
        }),
      );
    } else {
      for (const word of b.text.split(/(?<= )/))
        res.write(eventFrame('contentBlockDelta', { contentBlockIndex: i, delta: { text: word } }));
    }
    res.write(eventFrame('contentBlockStop', { contentBlockIndex: i }));
  });
  if (a.exceptionAfter) {
    res.end(exceptionFrame(a.exceptionAfter.type, a.exceptionAfter.message));
    return;
  }
  res.write(eventFrame('messageStop', { stopReason: stopOf(a) }));
  res.end(eventFrame('metadata', { usage: a.usage ?? DEFAULT_USAGE, metrics: { latencyMs: 1 } }));
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
