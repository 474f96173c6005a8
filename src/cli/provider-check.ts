/**
 * The checks behind `gateway providers`: per provider, whether it has credentials, whether its
 * endpoint answers a request that costs no tokens, and (opt-in) whether each model answers the
 * smallest generation request. Requests go through the gateway's own upstream client, so a
 * provider is reached the way `serve` reaches it. No key is ever part of a result.
 */
import { STATUS_CODES } from 'node:http';
import type { ModelSpec, ProviderConfig, Timeouts } from '../config/types.js';
import { CancelSignal } from '../core/cancel.js';
import { GatewayError } from '../core/errors.js';
import { UPSTREAM_FORMATS } from '../formats/registry.js';
import { boundText, redactSecrets } from '../observe/redact.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import { type HttpProviderKind, upstreamPath } from '../providers/types.js';
import type { UpstreamPool } from '../upstream/client.js';

/** Where the provider's credential comes from; never the credential itself. */
export type Credentials = 'configured' | 'caller' | 'missing' | 'none' | 'in-process';

/** Why a request failed, in a word a script can branch on. */
export type FailureClass =
  | 'dns'
  | 'refused'
  | 'timeout'
  | 'tls'
  | 'reset'
  | 'network'
  | 'credentials_missing'
  | 'credentials_rejected'
  | 'http_status'
  | 'config';

export interface RequestOutcome {
  status: 'ok' | 'failed' | 'skipped';
  latencyMs?: number;
  httpStatus?: number;
  error?: FailureClass;
  detail: string;
}

export interface ModelCheck extends RequestOutcome {
  model: string;
}

export interface ProviderCheck {
  provider: string;
  kind: string;
  status: 'ok' | 'failed';
  credentials: Credentials;
  /** The checked URL without query or user info (undefined for in-process kinds). */
  endpoint?: string;
  latencyMs?: number;
  httpStatus?: number;
  error?: FailureClass;
  detail: string;
  /** Only with --probe. */
  models?: ModelCheck[];
}

export interface CheckOptions {
  timeoutMs: number;
  probe: boolean;
  pool: UpstreamPool;
  /** Runs a task when a slot is free: bounds the requests in flight across all providers. */
  limit: <T>(task: () => Promise<T>) => Promise<T>;
}

export async function checkProvider(p: ProviderConfig, opts: CheckOptions): Promise<ProviderCheck> {
  const base = { provider: p.id, kind: p.api };
  const models = [...p.models.values()];
  if (p.api === 'mock') {
    const check: ProviderCheck = { ...base, status: 'ok', credentials: 'in-process', detail: REACHABLE['in-process'] };
    if (opts.probe) check.models = models.map((m) => ({ model: m.id, status: 'ok', detail: 'in-process' }));
    return check;
  }
  const kind = HTTP_PROVIDERS[p.api];
  if (!kind || p.baseUrl === undefined) {
    return { ...base, status: 'failed', credentials: 'none', error: 'config', detail: `no HTTP kind "${p.api}"` };
  }
  const credentials = credentialsOf(p);
  const healthPath = upstreamPath(kind, kind.healthPath, p);
  const endpoint = displayUrl(p.baseUrl, healthPath);
  const reach = await opts.limit(() => send(p, kind, { method: 'GET', path: healthPath }, opts.timeoutMs, opts.pool));
  const { status, ...verdict } = endpointVerdict(p, credentials, reach);
  const check: ProviderCheck = { ...base, status, credentials, endpoint, ...verdict };
  if (opts.probe) {
    const why = skipProbes(credentials, reach);
    check.models = await Promise.all(
      models.map(
        (m): Promise<ModelCheck> =>
          why
            ? Promise.resolve({ model: m.id, status: 'skipped', detail: `skipped: ${why}` })
            : opts.limit(() => probeModel(p, kind, m, opts)),
      ),
    );
    if (check.status === 'ok' && check.models.some((m) => m.status === 'failed')) {
      check.status = 'failed';
      check.detail = `${check.detail}; a model probe failed`;
    }
  }
  return check;
}

/** Why probing the models would tell nothing more (each would fail the same way), or ''. */
function skipProbes(credentials: Credentials, reach: RequestOutcome): string {
  if (credentials === 'missing') return 'no credentials';
  if (credentials === 'caller') return "needs a caller's key";
  if (reach.error === 'credentials_rejected') return 'credentials rejected';
  return reach.error && reach.error !== 'http_status' ? 'endpoint unreachable' : '';
}

function credentialsOf(p: ProviderConfig): Credentials {
  if (p.apiKey !== undefined || p.azure?.entra !== undefined || p.bedrock?.credentials || p.vertex !== undefined)
    return 'configured';
  if (!p.available) return 'missing';
  return p.byok === 'never' ? 'none' : 'caller';
}

/** What a healthy endpoint means, by credentials (a missing key fails before this). */
const REACHABLE: Record<Exclude<Credentials, 'missing'>, string> = {
  configured: 'reachable, credentials accepted',
  caller: 'reachable; callers bring their key',
  none: 'reachable (no key configured)',
  'in-process': 'in-process, always up',
};

/** The endpoint answered or not, read with what the provider's credentials are. */
function endpointVerdict(
  p: ProviderConfig,
  credentials: Credentials,
  r: RequestOutcome,
): Pick<ProviderCheck, 'status' | 'latencyMs' | 'httpStatus' | 'error' | 'detail'> {
  const { latencyMs, httpStatus } = r;
  const timing = { ...(latencyMs !== undefined ? { latencyMs } : {}), ...(httpStatus ? { httpStatus } : {}) };
  if (credentials === 'missing') {
    const reach = r.error && r.error !== 'credentials_rejected' ? `; endpoint: ${r.detail}` : '; endpoint reachable';
    const detail = `no credentials: ${p.unavailableReason}${reach}`;
    return { ...timing, status: 'failed', error: 'credentials_missing', detail };
  }
  // Without a key of its own a 401/403 is the expected answer: it proves the endpoint is there.
  if (credentials === 'caller' && r.error === 'credentials_rejected') {
    return { ...timing, status: 'ok', detail: `reachable (HTTP ${httpStatus} without a key); callers bring their key` };
  }
  if (r.status === 'ok') return { ...timing, status: 'ok', detail: REACHABLE[credentials] };
  const detail =
    credentials === 'none' && r.error === 'credentials_rejected' ? `${r.detail}; no key is configured` : r.detail;
  return { ...timing, status: 'failed', ...(r.error ? { error: r.error } : {}), detail };
}

async function probeModel(
  p: ProviderConfig,
  kind: HttpProviderKind,
  m: ModelSpec,
  opts: CheckOptions,
): Promise<ModelCheck> {
  // Embedding models answer on the embeddings endpoint, in the OpenAI embeddings format.
  const path = m.kind === 'embedding' ? kind.embeddingsPath : kind.chatPath;
  if (path === undefined) return { model: m.id, status: 'failed', error: 'config', detail: 'no embeddings endpoint' };
  const body = m.kind === 'embedding' ? { model: m.upstreamName, input: 'ping' } : kind.probeBody(m.upstreamName);
  const r = await send(
    p,
    kind,
    { method: 'POST', path: upstreamPath(kind, path, p, m), body },
    opts.timeoutMs,
    opts.pool,
  );
  return { model: m.id, ...r, detail: r.status === 'ok' ? 'answered' : r.detail };
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

/** One request with the provider's configured headers and key; every way it can end, in words. */
async function send(
  p: ProviderConfig,
  kind: HttpProviderKind,
  call: Call,
  timeoutMs: number,
  pool: UpstreamPool,
): Promise<RequestOutcome> {
  const timeouts: Timeouts = { connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs };
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const body = call.body !== undefined ? Buffer.from(JSON.stringify(call.body)) : undefined;
  const headers: Record<string, string> = {
    ...p.headers,
    // No caller here: the kind's defaults (Anthropic's anthropic-version).
    ...kind.forwardHeaders?.({}, kind.speaks, p, call.path),
    accept: 'application/json',
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  try {
    const request = { method: call.method, url: `${p.baseUrl}${call.path}`, headers, body };
    Object.assign(headers, await kind.authHeaders(p.apiKey, p, request));
  } catch (err) {
    // A token the kind could not get (Azure Entra ID) or a request it could not sign: named, never the secret.
    return { status: 'failed', latencyMs: elapsed(), ...tokenFailure(err, timeoutMs) };
  }
  try {
    const up = await pool.send({
      provider: p,
      path: call.path,
      method: call.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      timeouts,
      signal: new CancelSignal(),
    });
    const text = await up.body.text();
    const latencyMs = elapsed();
    if (up.status >= 200 && up.status < 300) return { status: 'ok', latencyMs, httpStatus: up.status, detail: 'ok' };
    if (up.status === 401 || up.status === 403 || refusedKey(kind, up.status, text)) {
      // The body is not shown: some providers echo part of the key they refused.
      const detail = `credentials rejected (HTTP ${up.status})`;
      return { status: 'failed', latencyMs, httpStatus: up.status, error: 'credentials_rejected', detail };
    }
    return {
      status: 'failed',
      latencyMs,
      httpStatus: up.status,
      error: 'http_status',
      detail: statusDetail(p, kind, up.status, text),
    };
  } catch (err) {
    const { error, detail } = transportFailure(err, timeoutMs);
    return { status: 'failed', latencyMs: elapsed(), error, detail };
  }
}

/** An error body that says the key was refused under another status (Gemini's 400 API_KEY_INVALID). */
function refusedKey(kind: HttpProviderKind, status: number, text: string): boolean {
  const format = UPSTREAM_FORMATS[kind.speaks];
  if (!format?.errorStatus) return false;
  try {
    const mapped = format.errorStatus(status, JSON.parse(text));
    return mapped === 401 || mapped === 403;
  } catch {
    return false;
  }
}

/** `HTTP 404 Not Found: <the provider's message>`, with any key in it redacted, as the gateway relays it. */
function statusDetail(p: ProviderConfig, kind: HttpProviderKind, status: number, text: string): string {
  let message: string | undefined;
  try {
    message = UPSTREAM_FORMATS[kind.speaks]?.errorMessage(JSON.parse(text));
  } catch {
    message = undefined;
  }
  const head = STATUS_CODES[status] ? `HTTP ${status} ${STATUS_CODES[status]}` : `HTTP ${status}`;
  return message ? `${head}: ${boundText(redactSecrets(message, [p.apiKey]), 200)}` : head;
}

/** A failed token request: refused credentials, or an endpoint that could not be reached in time. */
function tokenFailure(err: unknown, timeoutMs: number): { error: FailureClass; detail: string } {
  if (!(err instanceof GatewayError)) return { error: 'credentials_rejected', detail: 'no token' };
  if (err.code === 'upstream_error') return { error: 'credentials_rejected', detail: err.message };
  return { error: transportFailure(err, timeoutMs).error, detail: err.message };
}

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/;

/** The upstream client's error (its cause: the socket's error code) as a class and plain words. */
export function transportFailure(err: unknown, timeoutMs: number): { error: FailureClass; detail: string } {
  if (err instanceof GatewayError && err.code === 'upstream_timeout')
    return { error: 'timeout', detail: `no answer within ${timeoutMs} ms` };
  const code = causeCode(err);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
    return { error: 'dns', detail: `DNS lookup failed (${code})` };
  if (code === 'ECONNREFUSED') return { error: 'refused', detail: 'connection refused' };
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return { error: 'timeout', detail: `no answer within ${timeoutMs} ms` };
  if (code && TLS_CODE.test(code)) return { error: 'tls', detail: `TLS failure (${code})` };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return { error: 'reset', detail: `connection closed by the server (${code})` };
  return { error: 'network', detail: code ? `network error (${code})` : 'network error' };
}

/** The first `code` along the cause chain, skipping the catalogue error's own. */
function causeCode(err: unknown): string | undefined {
  let e: unknown = err instanceof GatewayError ? err.cause : err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** base_url + path as shown: no user info, no query (neither is needed to know where it went). */
function displayUrl(baseUrl: string, path: string): string {
  try {
    const u = new URL(baseUrl + path);
    return `${u.origin}${u.pathname}`;
  } catch {
    return baseUrl + path;
  }
}
