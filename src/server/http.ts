/**
 * The node:http server: correlation id first, then the route's pipeline; /health without auth;
 * 404/405 in the caller's format; requests the HTTP parser refuses answered in the same contract
 * (protocol-errors.ts); graceful close that lets in-flight requests and streams finish.
 */

import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/types.js';
import { CancelSignal } from '../core/cancel.js';
import { GatewayError } from '../core/errors.js';
import { acceptCorrelationId, newCorrelationId } from '../core/ids.js';
import type { WireFormat } from '../formats/types.js';
import type { GatewayRuntime, RequestContext } from '../request/context.js';
import { writeError } from '../pipeline/render.js';
import { createLogger, type Logger } from '../observe/logger.js';
import { runQueued as runQueuedReports } from '../observe/end-of-turn.js';
import { UpstreamPool } from '../upstream/client.js';
import { Breakers } from '../routing/cooldown.js';
import { createStore } from '../state/create-store.js';
import { ReconcileQueue } from '../state/reconcile.js';
import { TelemetryHub } from '../observe/telemetry.js';
import { GatewayMetrics, labelAllowList } from '../observe/metrics.js';
import { OtlpTracing } from '../observe/tracing.js';
import { budgetRows } from '../budget/report.js';
import { presentedKey } from '../http/presented-key.js';
import { sameSecret } from '../core/secrets.js';
import type { StateStore } from '../state/store.js';
import { answerProtocolError } from './protocol-errors.js';
import { formatForUnknownPath, routePath, ROUTES, type Route } from './routes.js';
import { leaveBodyUnread, REFUSED_DISCARD } from '../http/unread-body.js';
import { writeJson } from '../http/write.js';

export interface GatewayOptions {
  logger?: Logger;
  /** Budget and rate-limit state; default: the one `config.state` describes. */
  store?: StateStore;
}

export interface Gateway {
  readonly server: Server;
  readonly runtime: GatewayRuntime;
  /** Starts listening; resolves with the base URL, e.g. http://127.0.0.1:4000. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, waits up to graceMs for in-flight requests, then closes everything. */
  close(graceMs?: number): Promise<void>;
  /**
   * Uses `next` for requests that start from now on; requests and streams in flight finish on
   * the config they started with. Budget/rate-limit state, circuits and pools carry over.
   * Returns what the new config changes that only a restart applies.
   */
  reload(next: GatewayConfig): string[];
}

function formatOf(route: Route | undefined, req: IncomingMessage): WireFormat | undefined {
  if (!route) return undefined;
  return typeof route.format === 'function' ? route.format(req) : route.format;
}

export function createGateway(config: GatewayConfig, opts: GatewayOptions = {}): Gateway {
  const logger = opts.logger ?? createLogger();
  const store = opts.store ?? createStore(config.state);
  const obs = config.observability;
  const metrics = obs.metrics.enabled
    ? new GatewayMetrics({
        ...labelAllowList(config),
        processMetrics: true,
        cooling: () => runtime.breakers.cooling(),
        budgets: async () =>
          (await budgetRows(runtime.config, runtime.store, Date.now())).map((r) => ({
            id: r.id,
            remainingUsd: r.remainingUsd,
          })),
        // Only with traces on (the tracer is made just below; read at scrape time).
        ...(obs.traces
          ? { traceSpansDropped: () => tracing?.stats.dropped ?? 0, traceQueueBytes: () => tracing?.queuedBytes ?? 0 }
          : {}),
      })
    : undefined;
  const tracing = obs.traces
    ? new OtlpTracing({
        endpoint: obs.traces.otlpEndpoint,
        serviceName: obs.traces.serviceName,
        headers: obs.traces.headers,
        providers: config.providers,
        logger,
      })
    : undefined;
  const runtime: GatewayRuntime = {
    config,
    upstream: new UpstreamPool(),
    logger,
    startedAtEpochMs: Date.now(),
    breakers: new Breakers(),
    store,
    reconcile: new ReconcileQueue(store, logger),
    telemetry: new TelemetryHub([metrics, tracing].filter((s) => s !== undefined)),
  };
  const byPath = new Map<string, Route[]>();
  for (const r of ROUTES) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  let inFlight = 0;
  let closing = false;
  const idle: Array<() => void> = [];

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const id = acceptCorrelationId(req.headers['x-correlation-id']) ?? newCorrelationId();
    // Every response carries the id. It goes out with each writer's own header object (handed to
    // writeHead whole): a res.setHeader first would make writeHead validate and merge every
    // header one by one.
    const own: Record<string, string> = closing
      ? { 'x-correlation-id': id, connection: 'close' }
      : { 'x-correlation-id': id };
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    // Not split('?'): an array and a copy per request for what is, almost always, the whole url.
    const path = query < 0 ? url : url.slice(0, query);
    if (path === '/health' && req.method === 'GET') {
      writeJson(res, 200, { status: 'ok' }, own);
      return;
    }
    if (path === '/ready' && req.method === 'GET') {
      void ready(res, own);
      return;
    }
    // On the main port only behind the admin key (check-config refuses metrics with no protection).
    if (
      path === '/metrics' &&
      req.method === 'GET' &&
      metrics &&
      obs.metrics.port === undefined &&
      obs.metrics.adminKey !== undefined
    ) {
      void serveMetrics(req, res, own);
      return;
    }
    const routes = byPath.get(routePath(path));
    const route = routes?.find((r) => r.method === req.method);
    const clientGone = new CancelSignal();
    res.on('close', () => {
      if (!res.writableFinished) clientGone.abort(new Error('The client closed the connection.'));
    });
    // Every field the stages set later is declared here, so all contexts share one shape and
    // the property accesses on them stay monomorphic.
    const ctx: RequestContext = {
      id,
      req,
      res,
      runtime,
      config: runtime.config,
      format: formatOf(route ?? routes?.[0], req) ?? formatForUnknownPath(path, req),
      endpoint: route ? route.label : 'unknown',
      startedAt: performance.now(),
      startedAtEpochMs: Date.now(),
      signal: clientGone,
      rawBody: undefined,
      rawMembers: undefined,
      body: undefined,
      chat: undefined,
      embeddings: undefined,
      principal: undefined,
      outputGuarded: undefined,
      resolution: undefined,
      responseHeaders: own,
      reply: undefined,
      served: undefined,
      costNano: undefined,
      onDone: [],
      byok: undefined,
      relayed: undefined,
      attempts: 0,
      usage: undefined,
      status: undefined,
      error: undefined,
      firstByteSentAt: undefined,
      droppedFields: undefined,
      rewrittenFields: undefined,
      attemptLog: [],
      backoffMs: 0,
      guardrailHits: [],
    };
    if (!route) {
      const err = isWebSocketUpgrade(req)
        ? new GatewayError(
            'upgrade_not_supported',
            `WebSocket connections are not supported on ${path}: send the request over HTTP (POST).`,
          )
        : routes
          ? new GatewayError('method_not_allowed', `${req.method} is not allowed on ${path}.`, {
              headers: { allow: routes.map((r) => r.method).join(', ') },
            })
          : new GatewayError('route_not_found', `There is no route ${req.method} ${path}.`);
      leaveBodyUnread(req, REFUSED_DISCARD);
      writeError(ctx, err);
      return;
    }
    inFlight++;
    // One settled handler per outcome (no catch/finally pair of promises and closures per request).
    route.run(ctx).then(finished, (err: unknown) => {
      runtime.logger.log('error', 'unhandled pipeline failure', { correlation_id: id, error: String(err) });
      if (!res.headersSent) writeJson(res, 500, { error: { message: 'internal error' } }, own);
      else res.destroy();
      finished();
    });
  };
  const finished = () => {
    inFlight--;
    if (inFlight === 0)
      idle.splice(0).forEach((f) => {
        f();
      });
  };

  /** Prometheus text; behind the admin key when one is configured (always, on the main port). */
  const serveMetrics = async (req: IncomingMessage, res: ServerResponse, own: Record<string, string> = {}) => {
    const adminKey = obs.metrics.adminKey;
    if (adminKey !== undefined && !sameSecret(presentedKey(req.headers), adminKey)) {
      writeJson(
        res,
        401,
        {
          error: {
            message: 'GET /metrics needs the metrics admin key: Authorization: Bearer <key>.',
            type: 'authentication_error',
            code: 'invalid_api_key',
          },
        },
        own,
      );
      return;
    }
    try {
      const { contentType, body } = await metrics!.render();
      res.writeHead(200, { ...own, 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    } catch {
      writeJson(res, 500, { error: { message: 'metrics unavailable' } }, own);
    }
  };
  let metricsServer: Server | undefined;

  /**
   * Ready: a config is loaded and the state store answers. Unauthenticated, so it names no file,
   * host or path: the store's error goes to the log, once per outage.
   */
  let storeDown = false;
  const ready = async (res: ServerResponse, own: Record<string, string>) => {
    try {
      await runtime.store.ping();
      storeDown = false;
      writeJson(res, 200, { status: 'ready', store: runtime.store.kind }, own);
    } catch (err) {
      if (!storeDown)
        runtime.logger.log('warn', 'not ready: state store unreachable', {
          store: runtime.store.kind,
          error: (err as Error).message,
        });
      storeDown = true;
      writeJson(res, 503, { status: 'not_ready', store: runtime.store.kind, reason: 'state store unreachable' }, own);
    }
  };

  const server = createServer(serverOptions(config), handle);
  // Expect: 100-continue is answered when the body is read (after authentication), not before.
  server.on('checkContinue', handle);
  server.on('clientError', (err: Error, socket) => answerProtocolError(err, socket, runtime.logger));

  return {
    server,
    runtime,
    listen(port = config.server.port, host = config.server.host) {
      return new Promise((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          if (metrics && obs.metrics.port !== undefined) {
            // Metrics on their own port (e.g. reachable only from the monitoring network).
            metricsServer = createServer(serverOptions(config), (mreq, mres) => {
              const p = (mreq.url ?? '/').split('?', 1)[0];
              if (p === '/metrics' && mreq.method === 'GET') void serveMetrics(mreq, mres);
              else writeJson(mres, 404, { error: { message: 'only GET /metrics is served here' } });
            });
            metricsServer.listen(obs.metrics.port, host);
          }
          const a = server.address() as AddressInfo;
          const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
          resolve(`http://${h}:${a.port}`);
        });
      });
    },
    reload(next: GatewayConfig): string[] {
      const current = runtime.config;
      const needRestart: string[] = [];
      if (next.server.host !== current.server.host || next.server.port !== current.server.port)
        needRestart.push('server.host/server.port');
      if (
        next.server.headersTimeoutMs !== current.server.headersTimeoutMs ||
        next.server.requestTimeoutMs !== current.server.requestTimeoutMs
      ) {
        needRestart.push('server.headers_timeout_ms/server.request_timeout_ms');
      }
      if (JSON.stringify(next.state) !== JSON.stringify(current.state)) needRestart.push('state');
      if (JSON.stringify(next.observability) !== JSON.stringify(current.observability))
        needRestart.push('observability');
      runtime.config = next;
      metrics?.setLabelAllowList(labelAllowList(next));
      return needRestart;
    },
    async close(graceMs = config.server.shutdownGraceMs) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise((r) => setTimeout(r, graceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
      // Requests cut just now still settle their reservations (in their pipelines' finally):
      // wait for that, bounded, so the store's last write holds what they actually used.
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => idle.push(resolve)),
          new Promise((r) => setTimeout(r, 2000).unref()),
        ]);
      }
      // The last requests' log lines and telemetry, still waiting for the end of the turn.
      runQueuedReports();
      await runtime.upstream.close();
      await runtime.reconcile.close();
      await runtime.telemetry.close();
      await new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve()));
      await runtime.store.close();
    },
  };
}

/**
 * Node's own limits on receiving a request. requestTimeout covers only the request (headers and
 * body), never the response, so long streams are not cut. Node checks both every
 * connectionsCheckingInterval (30 s by default, which would let a 30 s headers timeout run to
 * 60 s): checked here at a quarter of the headers timeout, at most every second.
 */
function serverOptions(config: GatewayConfig): ServerOptions {
  const { headersTimeoutMs, requestTimeoutMs } = config.server;
  return {
    keepAlive: true,
    noDelay: true,
    keepAliveTimeout: 65_000,
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
  };
}

/** A WebSocket handshake (no route takes one: each is answered 426, so clients fall back to HTTP). */
function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}
