/**
 * HTTP to providers: one undici Agent (keep-alive pool per origin) per provider, with the
 * provider's connect / first-byte / total timeouts, aborted when the caller goes away.
 */

import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { ProviderConfig, Timeouts } from '../config/types.js';
import { CancelSignal } from '../core/cancel.js';
import { GatewayError } from '../core/errors.js';

export interface UpstreamRequest {
  provider: ProviderConfig;
  /** Path appended to the provider's base URL, e.g. `/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The model's timeouts (the provider's, with the model's overrides). */
  timeouts: Timeouts;
  /** The caller's abort signal (client disconnect). */
  signal: CancelSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/** Per provider: its pool and its base URL split once (no URL parsing per request). */
interface Target {
  agent: Agent;
  origin: string;
  basePath: string;
}

export class UpstreamPool {
  private readonly targets = new Map<string, Target>();

  /** One pool per provider and connect timeout (a pool's connect timeout is fixed). */
  private targetFor(p: ProviderConfig, connectMs: number): Target {
    // The base URL is part of the key: a reloaded config may point a provider elsewhere.
    const key = `${p.id} ${p.baseUrl} ${connectMs}`;
    let t = this.targets.get(key);
    if (!t) {
      const url = new URL(p.baseUrl ?? `http://provider-${p.id}.invalid`);
      t = {
        agent: new Agent({
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 600_000,
          connect: { timeout: connectMs, noDelay: true },
        }),
        origin: url.origin,
        basePath: url.pathname.replace(/\/+$/, ''),
      };
      this.targets.set(key, t);
    }
    return t;
  }

  /**
   * One controller per attempt, aborted by the caller going away or by the total timeout, with a
   * GatewayError as the reason so undici rejects (or destroys the body) with the catalogue error
   * itself. The timer lives until the body is finished, so the total timeout covers streams.
   */
  async send(r: UpstreamRequest): Promise<UpstreamResponse> {
    const p = r.provider;
    const tm = r.timeouts;
    const t = this.targetFor(p, tm.connectMs);
    const ac = new CancelSignal();
    // The caller leaving is its own event, never a provider failure (circuits and cooldowns ignore it).
    const onCallerGone = () =>
      ac.abort(
        new GatewayError(
          'client_disconnected',
          `The request to provider "${p.id}" was cancelled: the client went away.`,
        ),
      );
    const timer = setTimeout(
      () =>
        ac.abort(
          new GatewayError(
            'upstream_timeout',
            `The request to provider "${p.id}" exceeded its total timeout of ${tm.totalMs} ms.`,
          ),
        ),
      tm.totalMs,
    );
    const release = () => {
      clearTimeout(timer);
      r.signal.off('abort', onCallerGone);
    };
    if (r.signal.aborted) onCallerGone();
    else r.signal.once('abort', onCallerGone);
    try {
      const res = await t.agent.request({
        origin: t.origin,
        path: t.basePath + r.path,
        method: 'POST',
        headers: r.headers,
        body: r.body,
        signal: ac,
        headersTimeout: tm.firstByteMs,
        bodyTimeout: tm.firstByteMs,
      });
      res.body.once('close', release);
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      release();
      throw upstreamFailure(err, p, tm);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.targets.values()].map((t) => t.agent.close()));
    this.targets.clear();
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
