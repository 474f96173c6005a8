/**
 * A strict Azure OpenAI front for the tests: a real HTTP server on 127.0.0.1 that checks what Azure
 * checks, then hands the OpenAI body (chat, embeddings, Responses) to THE fake upstream
 * (fake-upstream.ts: its strict rules, answers, streams, tools and stored responses) and relays its
 * answer. Shares no code with src/.
 *
 *   POST /openai/deployments/{d}/chat/completions?api-version=V   deployment style
 *   POST /openai/deployments/{d}/embeddings?api-version=V
 *   POST /openai/v1/chat/completions, /openai/v1/embeddings      v1 style: the deployment in `model`
 *   POST /openai/v1/responses                                    the Responses API (v1 only), to the fake's
 *   GET, DELETE /openai/v1/responses/{id}[/input_items]          its stored responses, relayed as they are
 *   GET /openai/models?api-version=V, GET /openai/v1/models      the models list (the deployments' names)
 *   POST /{tenant}/oauth2/v2.0/token                             Entra ID client credentials
 *
 * Refusals, as Azure words them: 401 a missing or wrong `api-key`, or a bearer token it did not
 * issue or that has expired; 404 `Resource not found` for a missing or unsupported api-version in
 * the deployment style (and any api-version but `preview` in v1); 404 `DeploymentNotFound` for an
 * unknown deployment; 400 `content_filter` (with `innererror.content_filter_result`) for a prompt
 * containing `filterTrigger`. A relayed JSON answer gains Azure's `prompt_filter_results` and
 * per-choice `content_filter_results`; a stream starts with Azure's chunk of prompt filter
 * results (empty `choices`, empty `model`).
 *
 * The token endpoint checks grant_type, client id, secret and scope; it issues `entra-token-<n>`
 * valid for `tokenLifetimeS`, after `tokenDelayMs`, and counts its fetches. `tokenFailure: true`
 * makes it answer 401 invalid_client, as for a wrong secret.
 */

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeUpstream } from './fake-upstream.js';

export const AZURE_API_KEY = 'azure-key-for-tests';
export const AZURE_API_VERSION = '2024-10-21';
export const ENTRA = { tenant: 'tenant-1', clientId: 'client-1', secret: 'entra-secret-for-tests' };
const SCOPE = 'https://cognitiveservices.azure.com/.default';
const SUPPORTED_VERSIONS = new Set([AZURE_API_VERSION, '2025-04-01-preview']);

export interface AzureCall {
  path: string;
  /** The deployment named (URL in the deployment style, `model` in v1). */
  deployment: string | undefined;
  apiVersion: string | null;
  headers: IncomingHttpHeaders;
  rawBody: string;
  status: number;
}

export interface FakeAzureOptions {
  deployments: string[];
  /** The credential accepted: the api-key, or bearer tokens from the token endpoint. */
  auth: 'api-key' | 'entra';
  tokenLifetimeS?: number;
  tokenDelayMs?: number;
  filterTrigger?: string;
}

export interface FakeAzure {
  url: string;
  calls: AzureCall[];
  tokenFetches: number;
  /** Tokens issued, newest last. */
  tokens: string[];
  tokenFailure: boolean;
  /** Refuses every token issued so far, as Azure does a revoked or expired one. */
  revokeTokens(): void;
  close(): Promise<void>;
}

export async function startFakeAzure(inner: FakeUpstream, opts: FakeAzureOptions): Promise<FakeAzure> {
  const issued = new Map<string, number>();
  const state: FakeAzure = {
    url: '',
    calls: [],
    tokenFetches: 0,
    tokens: [],
    tokenFailure: false,
    revokeTokens: () => issued.clear(),
    close: () => new Promise<void>((done) => server.close(() => done())),
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://azure.test');
    if (req.method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(url.pathname)) {
      await answerToken(res, url.pathname.split('/')[1] ?? '', rawBody);
      return;
    }
    const call: AzureCall = {
      path: url.pathname,
      deployment: undefined,
      apiVersion: url.searchParams.get('api-version'),
      headers: req.headers,
      rawBody,
      status: 0,
    };
    state.calls.push(call);
    const send = (status: number, body: unknown) => {
      call.status = status;
      json(res, status, body);
    };
    if (!authorised(req.headers)) {
      send(401, {
        error: {
          code: '401',
          message: 'Access denied due to invalid subscription key or wrong API endpoint.',
        },
      });
      return;
    }
    if (req.method === 'GET' && (url.pathname === '/openai/models' || url.pathname === '/openai/v1/models')) {
      const versionOk =
        url.pathname === '/openai/v1/models'
          ? v1VersionOk(call.apiVersion)
          : call.apiVersion !== null && SUPPORTED_VERSIONS.has(call.apiVersion);
      if (!versionOk) send(404, { error: { code: '404', message: 'Resource not found' } });
      else send(200, { object: 'list', data: opts.deployments.map((id) => ({ id, object: 'model' })) });
      return;
    }
    const stored = /^\/openai\/v1(\/responses\/[^/]+(?:\/input_items)?)$/.exec(url.pathname);
    if (stored && (req.method === 'GET' || req.method === 'DELETE') && v1VersionOk(call.apiVersion)) {
      url.searchParams.delete('api-version');
      const query = url.searchParams.size > 0 ? `?${url.searchParams}` : '';
      await relay(res, call, `/v1${stored[1]}${query}`, undefined, req.method);
      return;
    }
    const deploymentPath = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(url.pathname);
    const v1Path = /^\/openai\/v1\/(chat\/completions|embeddings|responses)$/.exec(url.pathname);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(rawBody);
    } catch {
      send(400, { error: { code: 'BadRequest', message: 'The request body is not JSON.' } });
      return;
    }
    const versionOk = deploymentPath
      ? call.apiVersion !== null && SUPPORTED_VERSIONS.has(call.apiVersion)
      : v1VersionOk(call.apiVersion);
    if (!(deploymentPath || v1Path) || !versionOk) {
      send(404, { error: { code: '404', message: 'Resource not found' } });
      return;
    }
    call.deployment = deploymentPath ? decodeURIComponent(deploymentPath[1] ?? '') : String(body.model);
    if (!opts.deployments.includes(call.deployment)) {
      send(404, {
        error: {
          code: 'DeploymentNotFound',
          message: 'The API deployment for this resource does not exist.',
        },
      });
      return;
    }
    if (opts.filterTrigger && rawBody.includes(opts.filterTrigger)) {
      send(400, contentFilterRefusal());
      return;
    }
    const endpoint = deploymentPath ? deploymentPath[2] : v1Path?.[1];
    await relay(res, call, `/v1/${endpoint}`, { ...body, model: call.deployment });
  });

  function authorised(h: IncomingHttpHeaders): boolean {
    if (opts.auth === 'api-key') return h['api-key'] === AZURE_API_KEY && h.authorization === undefined;
    const token = /^Bearer (\S+)$/.exec(h.authorization ?? '')?.[1];
    const expires = token === undefined ? undefined : issued.get(token);
    return h['api-key'] === undefined && expires !== undefined && Date.now() < expires;
  }

  async function answerToken(res: ServerResponse, tenant: string, rawBody: string): Promise<void> {
    state.tokenFetches += 1;
    if (opts.tokenDelayMs) await new Promise((r) => setTimeout(r, opts.tokenDelayMs));
    const form = new URLSearchParams(rawBody);
    const valid =
      !state.tokenFailure &&
      tenant === ENTRA.tenant &&
      form.get('grant_type') === 'client_credentials' &&
      form.get('client_id') === ENTRA.clientId &&
      form.get('client_secret') === ENTRA.secret &&
      form.get('scope') === SCOPE;
    if (!valid) {
      json(res, 401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' });
      return;
    }
    const lifetime = opts.tokenLifetimeS ?? 3599;
    const token = `entra-token-${state.tokens.length + 1}`;
    state.tokens.push(token);
    issued.set(token, Date.now() + lifetime * 1000);
    json(res, 200, { token_type: 'Bearer', expires_in: lifetime, ext_expires_in: lifetime, access_token: token });
  }

  /**
   * The call to THE fake upstream, its answer back; a chat answer with Azure's filter annotations. An answer cut
   * behind the front (before or mid-stream) cuts Azure's own: its socket destroyed after what arrived, no clean end.
   */
  async function relay(res: ServerResponse, call: AzureCall, path: string, body: unknown, method = 'POST') {
    try {
      await pass(res, call, path, body, method);
    } catch {
      res.destroy();
    }
  }

  async function pass(res: ServerResponse, call: AzureCall, path: string, body: unknown, method: string) {
    const up = await fetch(`${inner.url}${path}`, {
      method,
      headers: { authorization: 'Bearer inner', 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    call.status = up.status;
    const type = up.headers.get('content-type') ?? 'application/json';
    const headers: Record<string, string> = { 'content-type': type };
    const retryAfter = up.headers.get('retry-after');
    if (retryAfter) headers['retry-after'] = retryAfter;
    const chat = path === '/v1/chat/completions';
    if (!type.includes('text/event-stream')) {
      const text = await up.text();
      res.writeHead(up.status, headers).end(up.status === 200 && chat ? annotate(text) : text);
      return;
    }
    res.writeHead(up.status, headers);
    if (chat) res.write(`data: ${JSON.stringify(PROMPT_FILTER_CHUNK)}\n\n`);
    for await (const chunk of up.body ?? []) res.write(chunk);
    res.end();
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** v1 takes no api-version, or `preview`. */
function v1VersionOk(version: string | null): boolean {
  return version === null || version === 'preview';
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const SAFE = { filtered: false, severity: 'safe' };
const FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const PROMPT_FILTER_CHUNK = {
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTER_RESULTS }],
};

function annotate(text: string): string {
  const body = JSON.parse(text);
  body.prompt_filter_results = PROMPT_FILTER_CHUNK.prompt_filter_results;
  for (const choice of body.choices ?? []) choice.content_filter_results = FILTER_RESULTS;
  return JSON.stringify(body);
}

export function contentFilterRefusal(): unknown {
  return {
    error: {
      message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
      type: null,
      param: 'prompt',
      code: 'content_filter',
      status: 400,
      innererror: {
        code: 'ResponsibleAIPolicyViolation',
        content_filter_result: {
          hate: SAFE,
          jailbreak: { filtered: false, detected: false },
          self_harm: SAFE,
          sexual: SAFE,
          violence: { filtered: true, severity: 'high' },
        },
      },
    },
  };
}
