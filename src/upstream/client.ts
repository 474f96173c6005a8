/**
 * HTTP to providers: one undici Agent (keep-alive pool per origin) per provider, with the
 * provider's connect / first-byte / total timeouts, aborted when the caller goes away.
 */

import { createRequire } from 'node:module';
import type { Agent, Dispatcher, errors as UndiciErrors } from 'undici';
import { UpstreamBody } from './upstream-body.js';
import type { ProviderConfig, Timeouts } from '../config/types.js';
import type { CancelSignal } from '../core/cancel.js';
import { GatewayError } from '../core/errors.js';

/**
 * The two undici modules the gateway uses (its Agent, dispatched to with a handler of our own, and
 * its error classes), not the package's index: that one also loads fetch, WebSocket, EventSource,
 * the caches, the mocks and the interceptors (about 9 MB of RSS and 3 MB of heap in every gateway
 * process for code never run). undici has no exports map, so these paths are the package's own
 * files, the same module objects its index re-exports (instanceof holds).
 */
const requireCjs = createRequire(import.meta.url);
const UndiciAgent = requireCjs('undici/lib/dispatcher/agent.js') as typeof Agent;
const undiciErrors = requireCjs('undici/lib/core/errors.js') as typeof UndiciErrors;

export interface UpstreamRequest {
  provider: ProviderConfig;
  /** Path appended to the provider's base URL, e.g. `/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  /** POST unless said (GET / DELETE of a provider-held stored response carry no body). */
  method?: 'POST' | 'GET' | 'DELETE';
  body?: Buffer;
  /** The model's timeouts (the provider's, with the model's overrides). */
  timeouts: Timeouts;
  /** The caller's abort signal (client disconnect). */
  signal: CancelSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/** Per provider: its pool and its base URL split once (no URL parsing per request). */
interface Target {
  agent: Agent;
  origin: string;
  basePath: string;
}

export class UpstreamPool {
  private readonly targets = new Map<string, Target>();

  /** The last target found per provider config object: no key string built per request. */
  private recent = new WeakMap<ProviderConfig, { connectMs: number; target: Target }>();

  /** One pool per provider and connect timeout (a pool's connect timeout is fixed). */
  private targetFor(p: ProviderConfig, connectMs: number): Target {
    const hit = this.recent.get(p);
    if (hit?.connectMs === connectMs) return hit.target;
    // The base URL is part of the key: a reloaded config may point a provider elsewhere.
    const key = `${p.id} ${p.baseUrl} ${connectMs}`;
    let t = this.targets.get(key);
    if (!t) {
      const url = new URL(p.baseUrl ?? `http://provider-${p.id}.invalid`);
      t = {
        agent: new UndiciAgent({
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 600_000,
          connect: { timeout: connectMs, noDelay: true },
        }),
        origin: url.origin,
        basePath: url.pathname.replace(/\/+$/, ''),
      };
      this.targets.set(key, t);
    }
    this.recent.set(p, { connectMs, target: t });
    return t;
  }

  /**
   * One undici dispatch per attempt with a handler of our own (no Readable, no AbortController):
   * aborted by the caller going away or by the total timeout, with a GatewayError as the reason,
   * so the body's reader sees the catalogue error itself. The timer lives until the body is
   * finished, so the total timeout covers streams.
   */
  send(r: UpstreamRequest): Promise<UpstreamResponse> {
    const p = r.provider;
    const tm = r.timeouts;
    const t = this.targetFor(p, tm.connectMs);
    if (r.signal.aborted) return Promise.reject(callerGone(p));
    return new Promise((resolve, reject) => {
      const call = new UpstreamCall(r, resolve, reject);
      t.agent.dispatch(
        {
          origin: t.origin,
          path: t.basePath + r.path,
          method: r.method ?? 'POST',
          headers: r.headers,
          body: r.body ?? null,
          headersTimeout: tm.firstByteMs,
          bodyTimeout: tm.firstByteMs,
        },
        call,
      );
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.targets.values()].map((t) => t.agent.close()));
    this.targets.clear();
    this.recent = new WeakMap();
  }
}

/** Transport failures → catalogue errors that name the provider and nothing secret. */
export function upstreamFailure(err: unknown, p: ProviderConfig, tm: Timeouts = p.timeouts): GatewayError {
  if (err instanceof GatewayError) return err;
  const name = `provider "${p.id}"`;
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('upstream_timeout', `Connecting to ${name} timed out after ${tm.connectMs} ms.`, {
      cause: err,
    });
  }
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('upstream_timeout', `${cap(name)} sent nothing for ${tm.firstByteMs} ms.`, { cause: err });
  }
  const code = (err as { code?: string } | null)?.code;
  if (code === 'UND_ERR_ABORTED' || (err as Error | null)?.name === 'AbortError') {
    return new GatewayError('upstream_unavailable', `The request to ${name} was aborted.`, { cause: err });
  }
  const detail = code ? ` (${code})` : '';
  return new GatewayError('upstream_unavailable', `Could not reach ${name}${detail}.`, { cause: err });
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function callerGone(p: ProviderConfig): GatewayError {
  // The caller leaving is its own event, never a provider failure (circuits and cooldowns ignore it).
  return new GatewayError(
    'client_disconnected',
    `The request to provider "${p.id}" was cancelled: the client went away.`,
  );
}

/** One attempt's dispatch handler: the answer's head resolves `send`, its chunks feed the body. */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: UpstreamBody | undefined;
  /** Why the attempt was cut before undici handed over its controller. */
  private pendingAbort: Error | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerGone = () => this.abort(callerGone(this.r.provider));

  constructor(
    private readonly r: UpstreamRequest,
    private readonly resolve: (res: UpstreamResponse) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    const { provider: p, timeouts: tm } = r;
    this.timer = setTimeout(
      () =>
        this.abort(
          new GatewayError(
            'upstream_timeout',
            `The request to provider "${p.id}" exceeded its total timeout of ${tm.totalMs} ms.`,
          ),
        ),
      tm.totalMs,
    );
    r.signal.once('abort', this.onCallerGone);
  }

  private abort(reason: Error): void {
    if (this.controller) this.controller.abort(reason);
    else this.pendingAbort ??= reason;
  }

  private release(): void {
    clearTimeout(this.timer);
    this.r.signal.off('abort', this.onCallerGone);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.pendingAbort) controller.abort(this.pendingAbort);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: the answer is still to come
    const p = this.r.provider;
    this.body = new UpstreamBody(
      controller,
      () => new GatewayError('upstream_error', `Provider "${p.id}" sent a response larger than the gateway accepts.`),
    );
    this.resolve({ status: statusCode, headers, body: this.body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.release();
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.release();
    const failure = upstreamFailure(err, this.r.provider, this.r.timeouts);
    if (this.body) this.body.fail(failure);
    else this.reject(failure);
  }
}
