/**
 * A fake Gemini API (Generative Language API) on 127.0.0.1 for the gemini provider kind's tests:
 * as strict as the real one (gemini-rules.ts), recording every call, answering as the test says.
 * Shares no code with src/.
 *
 *   POST /v1beta/models/{model}:generateContent               a GenerateContentResponse
 *   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  the same, one part per `data:` chunk,
 *                                                              the finish reason and usage on the last
 *   POST /v1beta/models/{model}:countTokens                    {totalTokens}: request characters / 4
 *   GET /v1beta/models                                        a model list
 *   anything else                                             404 in Google's error shape
 * `x-goog-api-key` must be the configured key: missing → 403 PERMISSION_DENIED, another → 400
 * INVALID_ARGUMENT with reason API_KEY_INVALID (as Google answers).
 *
 * On a thinking model (gemini-2.5…, gemini-3…) the first function call of each answer is signed
 * with a fresh thoughtSignature, thought summaries come only when `includeThoughts` is asked, and
 * a later request whose current turn sends a call back without its signature (or with one this
 * upstream never issued) is refused, as newer Gemini models do.
 *
 *   const up = await startGeminiUpstream({ apiKey })
 *   up.setHandler((call) => Answer | ErrorAnswer | undefined)   undefined: "You said: <last user text>"
 *   up.received                                                 every call: path, headers, body, model, stream
 * An Answer streamed may be `cut` (no finish reason) or end with an `errorAfter` chunk.
 */

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkRequest, thinks } from './gemini-rules.js';

type Obj = Record<string, unknown>;

export interface GeminiCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: Obj;
  model: string;
  stream: boolean;
  /** What the fake answered: its status. */
  status?: number;
}

export type AnswerPart = { text: string } | { thought: string } | { call: { name: string; args: Obj } };
export interface Answer {
  parts: AnswerPart[];
  finishReason?: string;
  usage?: Obj;
  /** A stream only: ends after the parts without a finish reason (a cut stream)… */
  cut?: boolean;
  /** …or sends this Google error object as a chunk after the parts. */
  errorAfter?: Obj;
}
export interface ErrorAnswer {
  error: { status: number; body: Obj; headers?: Record<string, string> };
}
export type GeminiHandler = (call: GeminiCall) => Answer | ErrorAnswer | undefined;

export interface GeminiUpstream {
  url: string;
  received: GeminiCall[];
  setHandler(h: GeminiHandler | undefined): void;
  close(): Promise<void>;
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

export async function startGeminiUpstream(opts: { apiKey: string }): Promise<GeminiUpstream> {
  const received: GeminiCall[] = [];
  const signatures = new Set<string>();
  let handler: GeminiHandler | undefined;
  let answers = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const m = ROUTE.exec(url.pathname);
      let body: Obj = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
      } catch {
        body = {};
      }
      const stream = m?.[2] === 'streamGenerateContent';
      const call: GeminiCall = { path: req.url ?? '', headers: req.headers, body, model: m?.[1] ?? '', stream };
      received.push(call);
      const fail = (status: number, reason: string, message: string, extra: Obj[] = []) => {
        call.status = status;
        sendJson(res, status, {
          error: { code: status, message, status: reason, ...(extra.length ? { details: extra } : {}) },
        });
      };
      const key = req.headers['x-goog-api-key'];
      if (key === undefined)
        return fail(403, 'PERMISSION_DENIED', "Method doesn't allow unregistered callers. Please use an API key.");
      if (key !== opts.apiKey)
        return fail(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
        ]);
      if (req.method === 'GET' && url.pathname === '/v1beta/models') {
        call.status = 200;
        return sendJson(res, 200, {
          models: [{ name: 'models/gemini-2.5-flash' }, { name: 'models/gemini-2.0-flash' }],
        });
      }
      if (req.method !== 'POST' || !m) return fail(404, 'NOT_FOUND', `Path ${url.pathname} was not found.`);
      if (stream && url.searchParams.get('alt') !== 'sse')
        return fail(400, 'INVALID_ARGUMENT', 'This fake answers streams only with alt=sse.');
      if (m[2] === 'countTokens') {
        const inner = (body.generateContentRequest ?? body) as Obj;
        const known = Object.keys(body).every((k) => k === 'generateContentRequest' || k === 'contents');
        const { model: named, ...request } = inner;
        const problem = !known
          ? 'Invalid JSON payload received. Unknown name in countTokens.'
          : named !== undefined && named !== `models/${call.model}`
            ? `generateContentRequest.model must be models/${call.model}`
            : checkRequest(request, call.model, signatures);
        if (problem) return fail(400, 'INVALID_ARGUMENT', problem);
        call.status = 200;
        return sendJson(res, 200, { totalTokens: Math.ceil(JSON.stringify(request.contents).length / 4) });
      }
      const problem = checkRequest(body, call.model, signatures);
      if (problem) return fail(400, 'INVALID_ARGUMENT', problem);
      const out = handler?.(call) ?? youSaid(body);
      if ('error' in out) {
        call.status = out.error.status;
        return sendJson(res, out.error.status, out.error.body, out.error.headers);
      }
      call.status = 200;
      const rendered = render(out, body, call.model, `resp-${++answers}`, signatures);
      if (!stream) return sendJson(res, 200, rendered.whole);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = out.cut || out.errorAfter ? rendered.chunks.map(withoutFinish) : rendered.chunks;
      if (out.errorAfter) events.push({ error: out.errorAfter });
      for (const chunk of events) res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    setHandler: (h) => {
      handler = h;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function withoutFinish(chunk: Obj): Obj {
  const [candidate] = chunk.candidates as Obj[];
  const { finishReason: _, ...rest } = candidate;
  return { ...chunk, candidates: [rest] };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The default answer: the last user text, echoed. */
function youSaid(body: Obj): Answer {
  const texts = (body.contents as Obj[])
    .filter((c) => c.role === 'user')
    .flatMap((c) => (c.parts as Obj[]).filter((p) => typeof p.text === 'string').map((p) => p.text as string));
  return { parts: [{ text: `You said: ${texts[texts.length - 1] ?? ''}` }] };
}

function render(a: Answer, body: Obj, model: string, responseId: string, signatures: Set<string>) {
  const thinking = (body.generationConfig as Obj | undefined)?.thinkingConfig as Obj | undefined;
  const parts: Obj[] = [];
  let signed = false;
  for (const p of a.parts) {
    if ('thought' in p) {
      if (thinking?.includeThoughts === true) parts.push({ text: p.thought, thought: true });
    } else if ('call' in p) {
      const part: Obj = { functionCall: { name: p.call.name, args: p.call.args } };
      if (thinks(model) && !signed) {
        const signature = Buffer.from(`signature of ${responseId} ${p.call.name}`).toString('base64');
        signatures.add(signature);
        part.thoughtSignature = signature;
        signed = true;
      }
      parts.push(part);
    } else parts.push({ text: p.text });
  }
  const prompt = Math.ceil(JSON.stringify(body.contents).length / 4);
  const output = parts.reduce((n, p) => n + (typeof p.text === 'string' ? (p.text.match(/\S+/g) ?? []).length : 10), 0);
  const usage = a.usage ?? {
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    totalTokenCount: prompt + output + (thinks(model) ? 7 : 0),
    ...(thinks(model) ? { thoughtsTokenCount: 7 } : {}),
  };
  const finishReason = a.finishReason ?? 'STOP';
  const envelope = (candidateParts: Obj[], last: boolean): Obj => ({
    candidates: [
      {
        content: { parts: candidateParts, role: 'model' },
        ...(last ? { finishReason } : {}),
        index: 0,
      },
    ],
    usageMetadata: last ? usage : { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: model,
    responseId,
  });
  const chunks = parts.length === 0 ? [envelope([], true)] : parts.map((p, i) => envelope([p], i === parts.length - 1));
  return { whole: envelope(parts, true), chunks };
}
