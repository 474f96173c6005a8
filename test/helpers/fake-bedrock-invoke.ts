/**
 * A fake AWS Bedrock runtime on 127.0.0.1 for the bedrock-anthropic kind's tests: Claude through
 * InvokeModel, as strict as the real API where the gateway could go wrong, in front of the strict
 * fake Anthropic API (fake-upstream.ts). Shares no code with src/.
 *
 *   POST /model/{modelId}/invoke                      an Anthropic body with Bedrock's edits: no `model`,
 *                                                     no `stream`, `anthropic_version: bedrock-2023-05-31`,
 *                                                     only the fields Bedrock documents (`anthropic_beta`
 *                                                     among them, only with the betas Bedrock takes: 400
 *                                                     ValidationException "invalid beta flag" otherwise;
 *                                                     `betas` adds some); relayed to `/v1/messages` as Anthropic
 *                                                     takes it (model from the URL, the version and betas as
 *                                                     headers); its JSON answered as is
 *   POST /model/{modelId}/invoke-with-response-stream the same, streamed: each Anthropic event becomes an
 *                                                     AWS event-stream `chunk` frame `{"bytes": base64, "p":
 *                                                     padding}` (CRCs: bedrock-frames.ts), message_stop with
 *                                                     `amazon-bedrock-invocationMetrics`; an in-stream error
 *                                                     event becomes an exception frame
 *   POST /model/{modelId}/count-tokens                `{"input": {"invokeModel": {"body": base64}}}`, the body
 *                                                     checked as InvokeModel checks it → `{"inputTokens"}` from
 *                                                     Anthropic's count; a model in `noCountTokens`: 400
 *                                                     ValidationException "doesn't support counting tokens"
 *   GET /async-invoke                                 an empty ListAsyncInvokes answer
 * Auth: aws-auth.ts (a SigV4 signature recomputed over the body received, or the Bedrock API key).
 * Every refusal and upstream error is AWS's: `{message}` with the exception in `x-amzn-errortype`
 * (Anthropic's 400 → ValidationException, 401/403 → AccessDeniedException, 404 → ResourceNotFound,
 * 429 → ThrottlingException with its retry-after, 529/503 → ServiceUnavailableException, else
 * InternalServerException).
 *
 *   const fake = await startFakeBedrockInvoke({ region, credentials, apiKey, anthropic: up.url })
 *   fake.received   every call: path, model, headers, body as sent, status
 */

import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsRefusal, type AwsTestCredentials, bedrockAuthCheck } from './aws-auth.js';
import { eventFrame, exceptionFrame } from './bedrock-frames.js';

type Obj = Record<string, unknown>;

export const BEDROCK_VERSION = 'bedrock-2023-05-31';
/** The Anthropic API key behind the fake (never the gateway's). */
const ANTHROPIC_KEY = 'sk-ant-behind-bedrock';
const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|count-tokens)$/;
/**
 * The top-level fields of Bedrock's Claude messages body (the last two with the betas Bedrock takes:
 * context management, effort; the Anthropic API behind checks the beta header for them).
 */
const FIELDS = new Set([
  'anthropic_version',
  'anthropic_beta',
  'max_tokens',
  'messages',
  'system',
  'metadata',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'context_management',
  'output_config',
]);
/**
 * The anthropic_beta values Bedrock takes (LiteLLM's per-platform beta map; refused:
 * claude-code#49370, CLIProxyAPI#4750): not claude-code-20250219 nor prompt-caching-scope-2026-01-05.
 */
const BETAS = [
  'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
  'context-1m-2025-08-07',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19',
  'fine-grained-tool-streaming-2025-05-14',
  'output-128k-2025-02-19',
  'compact-2026-01-12',
];
/** What Anthropic's count_tokens takes of such a body. */
const COUNT_FIELDS = ['messages', 'system', 'tools', 'tool_choice', 'thinking'];

export interface InvokeCall {
  method: string;
  path: string;
  /** The model id, URL-decoded ('' for the health call). */
  model: string;
  headers: IncomingHttpHeaders;
  /** The body as received. */
  body: string;
  status?: number;
}

export interface FakeBedrockInvoke {
  url: string;
  received: InvokeCall[];
  close(): Promise<void>;
}

export async function startFakeBedrockInvoke(opts: {
  region: string;
  credentials: AwsTestCredentials;
  apiKey: string;
  /** Origin of the fake Anthropic API (fake-upstream.ts). */
  anthropic: string;
  /** Model ids CountTokens refuses (as it does cross-region inference profiles). */
  noCountTokens?: string[];
  /** anthropic_beta values this account takes besides Bedrock's (a newer beta). */
  betas?: string[];
}): Promise<FakeBedrockInvoke> {
  const betasTaken = new Set([...BETAS, ...(opts.betas ?? [])]);
  const received: InvokeCall[] = [];
  const authenticate = bedrockAuthCheck(opts);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const call: InvokeCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        model: '',
        headers: req.headers,
        body: raw.toString('utf8'),
      };
      received.push(call);
      void (async () => {
        try {
          await authenticate(call.method, call.path, req.headers, raw);
          const url = new URL(call.path, 'http://127.0.0.1');
          if (call.method === 'GET' && url.pathname === '/async-invoke') {
            call.status = 200;
            return json(res, 200, { asyncInvokeSummaries: [] });
          }
          const m = ROUTE.exec(url.pathname);
          if (call.method !== 'POST' || !m) throw new AwsRefusal(404, 'UnknownOperationException', 'Not found');
          call.model = decodeURIComponent(m[1]);
          if (m[2] === 'count-tokens') return await countTokens(call, raw, res);
          const body = invokeBody(raw, betasTaken);
          const stream = m[2] === 'invoke-with-response-stream';
          const up = await anthropic('/v1/messages', { model: call.model, ...body, ...(stream ? { stream } : {}) });
          if ((up.statusCode ?? 502) >= 400 || !stream) {
            const text = await readAll(up);
            if ((up.statusCode ?? 502) >= 400) return refuse(res, call, awsError(up.statusCode ?? 502, text), hint(up));
            call.status = 200;
            return send(res, 200, text, { 'content-type': 'application/json' });
          }
          call.status = 200;
          res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
          relayFrames(up, res);
        } catch (err) {
          refuse(res, call, err instanceof AwsRefusal ? err : new AwsRefusal(500, 'InternalServerException', `${err}`));
        }
      })();
    });
  });

  /** CountTokens of an InvokeModel body, counted by Anthropic's count_tokens. */
  async function countTokens(call: InvokeCall, raw: Buffer, res: ServerResponse): Promise<void> {
    const outer = parseObject(raw);
    const input = outer.input as Obj | undefined;
    const keys = Object.keys(outer).join(',');
    if (keys !== 'input' || !isObj(input) || Object.keys(input).join(',') !== 'invokeModel')
      throw validation(`CountTokens takes {input: {invokeModel}} here, not ${JSON.stringify(outer).slice(0, 80)}`);
    const blob = (input.invokeModel as Obj | undefined)?.body;
    if (typeof blob !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(blob))
      throw new AwsRefusal(400, 'SerializationException', 'input.invokeModel.body must be base64.');
    const body = invokeBody(Buffer.from(blob, 'base64'), betasTaken);
    if (opts.noCountTokens?.includes(call.model))
      throw validation("The provided model doesn't support counting tokens.");
    const counted: Obj = { model: call.model };
    for (const f of COUNT_FIELDS) if (body[f] !== undefined) counted[f] = body[f];
    const up = await anthropic('/v1/messages/count_tokens', counted, body.anthropic_beta);
    const text = await readAll(up);
    if ((up.statusCode ?? 502) >= 400) return refuse(res, call, awsError(up.statusCode ?? 502, text), hint(up));
    call.status = 200;
    json(res, 200, { inputTokens: (JSON.parse(text) as { input_tokens: number }).input_tokens });
  }

  /** One call of the Anthropic API, as Anthropic takes it; its answer unread. */
  function anthropic(path: string, body: Obj, betas = body.anthropic_beta): Promise<IncomingMessage> {
    const { anthropic_version: _, anthropic_beta: __, ...rest } = body;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-api-key': ANTHROPIC_KEY,
      'anthropic-version': '2023-06-01',
      ...(Array.isArray(betas) ? { 'anthropic-beta': betas.join(',') } : {}),
    };
    return new Promise((resolve, reject) => {
      const out = request(new URL(path, opts.anthropic), { method: 'POST', headers }, resolve);
      out.on('error', reject);
      out.end(JSON.stringify(rest));
    });
  }

  function refuse(res: ServerResponse, call: InvokeCall, r: AwsRefusal, headers: Record<string, string> = {}): void {
    call.status = r.status;
    json(res, r.status, { message: r.message }, { 'x-amzn-errortype': `${r.type}:`, ...headers });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An InvokeModel body as Bedrock checks it before the model sees it. */
function invokeBody(raw: Buffer, betasTaken: ReadonlySet<string>): Obj {
  const body = parseObject(raw);
  for (const k of Object.keys(body)) {
    if (!FIELDS.has(k))
      throw validation(
        `Malformed input request: #: extraneous key [${k}] is not permitted, please reformat your input`,
      );
  }
  if (body.anthropic_version !== BEDROCK_VERSION) {
    const what = body.anthropic_version === undefined ? 'required key [anthropic_version] not found' : 'bad version';
    throw validation(`Malformed input request: #: ${what}, please reformat your input and try again.`);
  }
  if (body.anthropic_beta !== undefined && !isStringArray(body.anthropic_beta))
    throw validation('Malformed input request: #/anthropic_beta: expected type: JSONArray of strings');
  if ((body.anthropic_beta as string[] | undefined)?.some((b) => !betasTaken.has(b)))
    throw validation('invalid beta flag');
  return body;
}

function readAll(up: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    up.on('data', (c: Buffer) => parts.push(c));
    up.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    up.on('error', reject);
  });
}

/** The retry-after an upstream refusal gave, passed on with the AWS exception. */
function hint(up: IncomingMessage): Record<string, string> {
  const retry = up.headers['retry-after'];
  return typeof retry === 'string' ? { 'retry-after': retry } : {};
}

/**
 * Anthropic's SSE → chunk frames, each written as its event arrives (an error event → an exception
 * frame, ending the stream; a cut upstream cuts the answer).
 */
function relayFrames(up: IncomingMessage, res: ServerResponse): void {
  let pending = '';
  let input = 0;
  let output = 0;
  let frames = 0;
  up.setEncoding('utf8');
  up.on('data', (text: string) => {
    pending += text;
    const blocks = pending.split('\n\n');
    pending = blocks.pop() ?? '';
    for (const block of blocks) {
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (!data || res.writableEnded) continue;
      const event = JSON.parse(data) as Obj;
      if (event.type === 'error') {
        const e = event.error as { type?: string; message?: string };
        res.end(exceptionFrame(streamExceptionOf(e.type), e.message ?? 'error'));
        continue;
      }
      const usage = ((event.message as Obj | undefined)?.usage ?? event.usage) as Obj | undefined;
      if (typeof usage?.input_tokens === 'number') input = usage.input_tokens;
      if (typeof usage?.output_tokens === 'number') output = usage.output_tokens;
      if (event.type === 'message_stop') {
        event['amazon-bedrock-invocationMetrics'] = {
          inputTokenCount: input,
          outputTokenCount: output,
          invocationLatency: 12,
          firstByteLatency: 3,
        };
      }
      const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
      frames++;
      res.write(eventFrame('chunk', { bytes, p: 'abcdefghijklmnopqrstuvwxyz'.slice(0, 1 + (frames % 26)) }));
    }
  });
  up.on('end', () => {
    if (!res.writableEnded) res.end();
  });
  up.on('error', () => res.destroy());
  // An upstream that went away before its end: the answer is cut too.
  up.on('close', () => {
    if (!res.writableEnded) res.destroy();
  });
}

function streamExceptionOf(type: string | undefined): string {
  if (type === 'rate_limit_error') return 'throttlingException';
  if (type === 'overloaded_error') return 'serviceUnavailableException';
  return 'modelStreamErrorException';
}

/** Anthropic's error answer → the AWS exception Bedrock answers instead. */
function awsError(status: number, text: string): AwsRefusal {
  let message = text;
  try {
    message = (JSON.parse(text) as { error: { message: string } }).error.message;
  } catch {
    // not Anthropic's shape: the text as it is
  }
  if (status === 400) return validation(message);
  if (status === 401 || status === 403) return new AwsRefusal(403, 'AccessDeniedException', message);
  if (status === 404) return new AwsRefusal(404, 'ResourceNotFoundException', message);
  if (status === 429) return new AwsRefusal(429, 'ThrottlingException', message);
  if (status === 529 || status === 503) return new AwsRefusal(503, 'ServiceUnavailableException', message);
  return new AwsRefusal(500, 'InternalServerException', message);
}

function validation(message: string): AwsRefusal {
  return new AwsRefusal(400, 'ValidationException', message);
}

function parseObject(raw: Buffer): Obj {
  try {
    const v: unknown = JSON.parse(raw.toString('utf8'));
    if (isObj(v)) return v;
  } catch {
    // refused below
  }
  throw new AwsRefusal(400, 'SerializationException', 'The body is not a JSON object.');
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((s) => typeof s === 'string');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
}

function send(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, headers);
  res.end(text);
}
