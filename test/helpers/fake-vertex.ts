/**
 * A fake Vertex AI on 127.0.0.1 for the vertex provider kind's tests: Google's OAuth token endpoint
 * for service accounts and the Gemini endpoints of one project and location, as strict as the real
 * ones. Shares no code with src/.
 *
 *   POST /token   grant_type jwt-bearer with an RS256 `assertion` signed by the service account's key
 *                 (verified with its public key: iss, aud, scope, iat/exp); answers a fresh token that
 *                 lives `tokenLifetimeS`. Every fetch is counted.
 *   POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent
 *   POST …:streamGenerateContent?alt=sse
 *                 relayed to THE fake upstream's strict Gemini API (fake-upstream.ts, `/v1beta/models/{m}:…`)
 *                 with its key, answered as it answers: same body, same stream.
 *   POST …/publishers/google/models/{m}:countTokens
 *                 Vertex's body: `contents`, `systemInstruction`, `tools`, `generationConfig` at the top
 *                 (and an optional `model` naming this one); anything else is 400 INVALID_ARGUMENT. Relayed
 *                 to the Gemini API's countTokens as its `generateContentRequest`; answers `{totalTokens}`.
 *   POST /v1/projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict (or :streamRawPredict)
 *                 Claude: the body must have no `model` and `anthropic_version: "vertex-2023-10-16"`
 *                 (400 INVALID_ARGUMENT otherwise), only the fields Vertex takes and only the
 *                 `anthropic-beta` values it knows (`claudeBetas` adds some), else Anthropic's 400
 *                 invalid_request_error as Vertex answers it ("… Extra inputs are not permitted",
 *                 "Unexpected value(s) `x` for the `anthropic-beta` header…"); it is relayed to the
 *                 strict fake Anthropic API (fake-upstream.ts `/v1/messages`, as Anthropic takes it:
 *                 `model` from the URL, the version as a header, the betas) and answered as it answers.
 *   POST …/publishers/anthropic/models/count-tokens:rawPredict
 *                 Claude's token count: Anthropic's count_tokens body WITH its `model` (the URL names no
 *                 model), `anthropic_version` optional but, when sent, the Vertex one, the betas checked as
 *                 above; relayed to the fake's `/v1/messages/count_tokens`, answers `{input_tokens}`.
 *   GET /v1/projects/{p}/locations/{l}/models   the project's (empty) model list
 * A bearer token this fake did not issue, or one past its expiry, is 401 UNAUTHENTICATED; another
 * project is 403 PERMISSION_DENIED; another location or path is 404 NOT_FOUND (Google's error shape).
 *
 *   const vx = await startFakeVertex({ project, location, gemini, geminiKey, anthropic })   (origins of fakes)
 *   vx.keyFile                 a service-account key file whose token_uri is this fake's
 *   vx.tokenFetches            how many tokens it issued
 *   vx.received                every API call: method, path, authorization, status
 */

import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream';

export const SERVICE_ACCOUNT = 'gateway-test@fake-project.iam.gserviceaccount.com';
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const ROUTE =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;
const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
const MODELS = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/models$/;
const GEMINI_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'];
/** What Vertex's countTokens takes (`instances` is for other models than Gemini's: not played here). */
const VERTEX_COUNT_FIELDS = ['model', 'contents', 'systemInstruction', 'tools', 'generationConfig'];
/** The Anthropic API behind the Claude endpoints (the gateway's strict fake upstream). */
const ANTHROPIC_KEY = 'sk-ant-behind-vertex';
/**
 * The anthropic-beta values Vertex takes for Claude (claude-code#34802: not effort-2025-11-24;
 * litellm#19984: not prompt-caching-scope-2026-01-05; tool search under its 3P name).
 */
const VERTEX_CLAUDE_BETAS = [
  'interleaved-thinking-2025-05-14',
  'context-management-2025-06-27',
  'tool-search-tool-2025-10-19',
  'compact-2026-01-12',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
];
/** The top-level fields of a Claude rawPredict body on Vertex. */
const VERTEX_CLAUDE_FIELDS = [
  'anthropic_version',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'context_management',
];

export interface VertexCall {
  method: string;
  path: string;
  authorization: string | undefined;
  /** The `anthropic-beta` header as received. */
  anthropicBeta: string | undefined;
  /** The body as sent. */
  body: string;
  status?: number;
}

export interface FakeVertex {
  url: string;
  keyFile: string;
  tokenFetches: number;
  /** Why the token endpoint refused each refused assertion. */
  refusals: string[];
  received: VertexCall[];
  /** Seconds each new token lives (3600 by default). */
  tokenLifetimeS: number;
  /** A valid token without the OAuth exchange, for tests that call the fake directly. */
  issueToken(): string;
  /** Refuse every token issued so far (as after a revocation). */
  revokeAll(): void;
  close(): Promise<void>;
}

export async function startFakeVertex(opts: {
  project: string;
  location: string;
  /** Origin of a fake upstream (fake-upstream.ts) that takes `geminiKey` on its Gemini API. */
  gemini: string;
  geminiKey: string;
  /** Origin of a fake Anthropic API (fake-upstream.ts). */
  anthropic: string;
  /** anthropic-beta values this project takes besides Vertex's (a newer beta). */
  claudeBetas?: string[];
}): Promise<FakeVertex> {
  const betasTaken = new Set([...VERTEX_CLAUDE_BETAS, ...(opts.claudeBetas ?? [])]);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'POST' && url.pathname === '/token') return token(body.toString('utf8'), res);
      const call: VertexCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        anthropicBeta: typeof req.headers['anthropic-beta'] === 'string' ? req.headers['anthropic-beta'] : undefined,
        body: body.toString('utf8'),
      };
      fake.received.push(call);
      const fail = (status: number, reason: string, message: string) => {
        call.status = status;
        sendJson(res, status, { error: { code: status, message, status: reason } });
      };
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const expires = bearer === undefined ? undefined : issued.get(bearer);
      if (expires === undefined || expires <= Date.now()) {
        return fail(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
      }
      const where = ROUTE.exec(url.pathname) ?? MODELS.exec(url.pathname);
      if (!where) return fail(404, 'NOT_FOUND', `Path ${url.pathname} was not found.`);
      if (decodeURIComponent(where[1]) !== opts.project) {
        return fail(403, 'PERMISSION_DENIED', `Permission denied on project ${where[1]}.`);
      }
      if (decodeURIComponent(where[2]) !== opts.location) {
        return fail(404, 'NOT_FOUND', `Location ${where[2]} is not this endpoint's.`);
      }
      if (req.method === 'GET' && MODELS.test(url.pathname)) {
        call.status = 200;
        return sendJson(res, 200, { models: [] });
      }
      const [, , , publisher, model, method] = where as RegExpExecArray;
      if (publisher === 'anthropic') {
        if (req.method !== 'POST' || (method !== 'rawPredict' && method !== 'streamRawPredict')) {
          return fail(404, 'NOT_FOUND', `Method ${method} was not found.`);
        }
        const claude = parseObject(body);
        if (!claude) return fail(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
        const unknownBetas = (call.anthropicBeta ?? '')
          .split(',')
          .map((b) => b.trim())
          .filter((b) => b && !betasTaken.has(b));
        if (unknownBetas.length > 0) {
          const values = unknownBetas.map((b) => `\`${b}\``).join(', ');
          return refuseClaude(
            res,
            call,
            `Unexpected value(s) ${values} for the \`anthropic-beta\` header. Please consult our documentation at ` +
              'docs.anthropic.com or try again without the header.',
          );
        }
        const headers = {
          'x-api-key': ANTHROPIC_KEY,
          'anthropic-version': '2023-06-01',
          ...(call.anthropicBeta ? { 'anthropic-beta': call.anthropicBeta } : {}),
        };
        if (model === 'count-tokens' && method === 'rawPredict') return claudeCount(claude, res, call, headers);
        if ('model' in claude) return fail(400, 'INVALID_ARGUMENT', 'model: Extra inputs are not permitted');
        if (claude.anthropic_version !== VERTEX_ANTHROPIC_VERSION) {
          return fail(400, 'INVALID_ARGUMENT', `anthropic_version must be ${VERTEX_ANTHROPIC_VERSION}`);
        }
        const extra = Object.keys(claude).find((k) => !VERTEX_CLAUDE_FIELDS.includes(k));
        if (extra) return refuseClaude(res, call, `${extra}: Extra inputs are not permitted`);
        const { anthropic_version: _, ...rest } = claude;
        const sent = Buffer.from(JSON.stringify({ model: decodeURIComponent(model), ...rest }));
        return relay(new URL('/v1/messages', opts.anthropic), sent, res, call, headers);
      }
      if (req.method !== 'POST' || !GEMINI_METHODS.includes(method as string)) {
        return fail(404, 'NOT_FOUND', `Method ${method} was not found.`);
      }
      if (method === 'countTokens') return geminiCount(model as string, body, res, call, fail);
      relay(new URL(`/v1beta/models/${model}:${method}${url.search}`, opts.gemini), body, res, call, {
        'x-goog-api-key': opts.geminiKey,
      });
    });
  });

  /** Vertex's countTokens body (its fields at the top), relayed as the Gemini API's generateContentRequest. */
  function geminiCount(
    model: string,
    body: Buffer,
    res: ServerResponse,
    call: VertexCall,
    fail: (status: number, reason: string, message: string) => void,
  ) {
    const count = parseObject(body);
    if (!count) return fail(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    const unknown = Object.keys(count).find((k) => !VERTEX_COUNT_FIELDS.includes(k));
    if (unknown) return fail(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "${unknown}".`);
    const { model: named, ...request } = count;
    if (named !== undefined && !String(named).endsWith(`/publishers/google/models/${model}`)) {
      return fail(400, 'INVALID_ARGUMENT', `model must name publishers/google/models/${model}.`);
    }
    const sent = Buffer.from(JSON.stringify({ generateContentRequest: { model: `models/${model}`, ...request } }));
    relay(new URL(`/v1beta/models/${model}:countTokens`, opts.gemini), sent, res, call, {
      'x-goog-api-key': opts.geminiKey,
    });
  }

  /** Claude's count: the body names the model (the URL cannot); relayed to Anthropic's count_tokens. */
  function claudeCount(
    claude: Record<string, unknown>,
    res: ServerResponse,
    call: VertexCall,
    headers: Record<string, string>,
  ) {
    const { anthropic_version: version, ...rest } = claude;
    const problem =
      typeof rest.model !== 'string'
        ? 'model: Field required'
        : version !== undefined && version !== VERTEX_ANTHROPIC_VERSION
          ? `anthropic_version must be ${VERTEX_ANTHROPIC_VERSION}`
          : undefined;
    if (problem) {
      call.status = 400;
      return sendJson(res, 400, { error: { code: 400, message: problem, status: 'INVALID_ARGUMENT' } });
    }
    relay(new URL('/v1/messages/count_tokens', opts.anthropic), Buffer.from(JSON.stringify(rest)), res, call, headers);
  }

  /** Google's token endpoint for a service account: the assertion must verify and say what it must. */
  function token(form: string, res: ServerResponse): void {
    fake.tokenFetches++;
    const params = new URLSearchParams(form);
    const problem =
      params.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer'
        ? 'unsupported grant_type'
        : checkAssertion(params.get('assertion') ?? '', publicKey);
    if (problem) {
      fake.refusals.push(problem);
      sendJson(res, 400, { error: 'invalid_grant', error_description: problem });
      return;
    }
    const value = `ya29.fake-${fake.tokenFetches}-${Math.random().toString(36).slice(2)}`;
    issued.set(value, Date.now() + fake.tokenLifetimeS * 1000);
    sendJson(res, 200, { access_token: value, expires_in: fake.tokenLifetimeS, token_type: 'Bearer' });
  }

  /** The call, as the publisher's own API takes it; its answer streamed back as it comes. */
  function relay(
    target: URL,
    body: Buffer,
    res: ServerResponse,
    call: VertexCall,
    headers: Record<string, string>,
  ): void {
    const out = request(
      target,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (up) => {
        call.status = up.statusCode;
        res.writeHead(up.statusCode ?? 502, { 'content-type': up.headers['content-type'] ?? 'application/json' });
        // An answer cut behind the front cuts Vertex's own (pipeline destroys `res`): no clean end.
        pipeline(up, res, () => undefined);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keyFile = join(tmpdir(), `vertex-key-${process.pid}-${Date.now()}.json`);
  writeFileSync(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      project_id: opts.project,
      private_key_id: 'fake-key-1',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: SERVICE_ACCOUNT,
      client_id: '100000000000000000001',
      token_uri: `${url}/token`,
    }),
  );
  const fake: FakeVertex = {
    url,
    keyFile,
    tokenFetches: 0,
    refusals: [],
    received: [],
    tokenLifetimeS: 3600,
    issueToken: () => {
      const value = `ya29.direct-${issued.size}-${Math.random().toString(36).slice(2)}`;
      issued.set(value, Date.now() + 60_000);
      return value;
    },
    revokeAll: () => issued.clear(),
    close: () => {
      rmSync(keyFile, { force: true });
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
  return fake;
}

/** Why a JWT assertion is refused, or '' when its signature verifies and its claims are right. */
function checkAssertion(jwt: string, key: KeyObject): string {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'the assertion is not a JWT';
  const [header, payload, signature] = parts;
  const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (head.alg !== 'RS256') return `alg ${String(head.alg)} is not RS256`;
  const signed = Buffer.from(`${header}.${payload}`);
  if (!verify('sha256', signed, key, Buffer.from(signature, 'base64url'))) return 'invalid JWT signature';
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  const now = Date.now() / 1000;
  if (claims.iss !== SERVICE_ACCOUNT) return 'iss is not the service account';
  if (claims.aud !== GOOGLE_TOKEN_URL) return `aud ${String(claims.aud)} is not ${GOOGLE_TOKEN_URL}`;
  if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(SCOPE)) return 'scope lacks cloud-platform';
  if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return 'iat and exp are required';
  if (claims.iat > now + 60 || claims.exp <= now || claims.exp - claims.iat > 3600) return 'iat/exp out of range';
  return '';
}

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What Vertex answers for a Claude request Anthropic's validation refuses: Anthropic's error body. */
function refuseClaude(res: ServerResponse, call: VertexCall, message: string): void {
  call.status = 400;
  sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
