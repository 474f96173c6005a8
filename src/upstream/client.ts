/**
 * HTTP to providers: one undici Agent (keep-alive pool per origin) per provider, with the
 * provider's connect / first-byte / total timeouts, aborted when the caller goes away.
 */

import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../core/errors.js';

export interface UpstreamRequest {
  provider: ProviderConfig;
  /** Path appended to the provider's base URL, e.g. `/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The caller's abort signal (client disconnect). */
  signal: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export class UpstreamPool {
  private readonly agents = new Map<string, Agent>();

  private agentFor(p: ProviderConfig): Agent {
    let agent = this.agents.get(p.id);
    if (!agent) {
      agent = new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        connect: { timeout: p.timeouts.connectMs, noDelay: true },
      });
      this.agents.set(p.id, agent);
    }
    return agent;
  }

  async send(r: UpstreamRequest): Promise<UpstreamResponse> {
    const p = r.provider;
    const url = new URL(p.baseUrl + r.path);
    const total = AbortSignal.timeout(p.timeouts.totalMs);
    const signal = AbortSignal.any([r.signal, total]);
    try {
      const res = await this.agentFor(p).request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: r.headers,
        body: r.body,
        signal,
        headersTimeout: p.timeouts.firstByteMs,
        bodyTimeout: p.timeouts.firstByteMs,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      throw upstreamFailure(err, p, total.aborted);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}

/** Transport failures → catalogue errors that name the provider and nothing secret. */
export function upstreamFailure(err: unknown, p: ProviderConfig, totalTimedOut: boolean): GatewayError {
  if (err instanceof GatewayError) return err;
  const name = `provider "${p.id}"`;
  if (totalTimedOut) return new GatewayError('upstream_timeout', `The request to ${name} exceeded its total timeout of ${p.timeouts.totalMs} ms.`, { cause: err });
  if (err instanceof undiciErrors.ConnectTimeoutError) {
    return new GatewayError('upstream_timeout', `Connecting to ${name} timed out after ${p.timeouts.connectMs} ms.`, { cause: err });
  }
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new GatewayError('upstream_timeout', `${cap(name)} sent nothing for ${p.timeouts.firstByteMs} ms.`, { cause: err });
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
