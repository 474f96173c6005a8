/**
 * Issue 10, point 10: the operational endpoints tell strangers nothing. /metrics is not public
 * by default (admin key on the main port, or a port of its own; neither is a config error),
 * /ready names no file, and a role sees only the model names it may send.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigText } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { createLogger } from '../../src/observe/logger.js';
import { createGateway } from '../../src/server/http.js';

const DEV_KEY = 'ops-dev-key-000001';
const ADMIN_KEY = 'ops-metrics-admin-key-01';

function yaml(observability = ''): string {
  return `
server: { host: 127.0.0.1, port: 0, shutdown_grace_ms: 500 }
providers:
  local:
    api: mock
    models:
      echo: { context_window: 8192 }
  vip:
    api: mock
    models:
      big: { context_window: 100000 }
      secret-preview: { context_window: 50000 }
aliases:
  team/smart: { targets: [ vip/big, local/echo ], fallbacks: [ vip/secret-preview ] }
roles:
  dev: { models: ["team/*", "local/*"] }
keys:
  - { id: dev, key: ${DEV_KEY}, role: dev }
${observability}`;
}

/** The config as `gateway serve` would load it from an absolute path. */
function load(text: string, path = '/srv/private/team-a/gateway.yaml') {
  return loadConfigText(text, path, {}, path);
}

function mustLoad(text: string): GatewayConfig {
  const r = load(text);
  if (!r.config) throw new Error(r.issues.map((i) => `${i.path}: ${i.message}`).join('\n'));
  return r.config;
}

async function serve(config: GatewayConfig) {
  const logs: string[] = [];
  const gateway = createGateway(config, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
  const url = await gateway.listen(0, '127.0.0.1');
  return { url, logs, close: () => gateway.close(500) };
}

describe('/metrics is not public by default', () => {
  it('without an observability section, the main port does not serve /metrics', async () => {
    const gw = await serve(mustLoad(yaml()));
    try {
      const res = await fetch(`${gw.url}/metrics`);
      const text = await res.text();
      expect(res.status).toBe(404);
      expect(text).not.toContain('gateway_requests');
      expect(text).not.toContain('vip/');
      expect(res.headers.get('x-correlation-id')).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    } finally {
      await gw.close();
    }
  });

  it('metrics enabled with neither admin_key nor port is a check-config error naming both', () => {
    const r = load(yaml('observability: { metrics: { enabled: true } }'));
    const errors = r.issues.filter((i) => i.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: 'observability.metrics.enabled' });
    expect(errors[0]!.message).toContain('observability.metrics.admin_key');
    expect(errors[0]!.message).toContain('observability.metrics.port');
    expect(r.config).toBeUndefined();
  });

  it('with an admin key, /metrics on the main port answers only that key', async () => {
    const gw = await serve(mustLoad(yaml(`observability: { metrics: { admin_key: ${ADMIN_KEY} } }`)));
    try {
      for (const headers of [
        {},
        { authorization: `Bearer ${DEV_KEY}` },
        { authorization: 'Bearer wrong-wrong-wrong' },
      ] as Array<Record<string, string>>) {
        const res = await fetch(`${gw.url}/metrics`, { headers });
        const text = await res.text();
        expect(res.status).toBe(401);
        expect(text).not.toContain('gateway_');
      }
      const ok = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('# TYPE');
      expect(gw.logs.join('\n')).not.toContain(ADMIN_KEY);
    } finally {
      await gw.close();
    }
  });
});

describe('/ready', () => {
  it('answers without naming the config file or its directory', async () => {
    const gw = await serve(mustLoad(yaml()));
    try {
      const res = await fetch(`${gw.url}/ready`);
      const body = await res.text();
      expect(res.status).toBe(200);
      expect(JSON.parse(body)).toEqual({ status: 'ready', store: 'memory' });
      expect(body).not.toContain('/srv/private');
      expect(body).not.toContain('gateway.yaml');
    } finally {
      await gw.close();
    }
  });
});

describe('a role sees only the names it may send', () => {
  it('check-config warns about an alias that reaches models outside the role', () => {
    const r = load(yaml());
    const warnings = r.issues.filter((i) => i.severity === 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ path: 'roles.dev.models[0]' });
    expect(warnings[0]!.message).toContain('team/smart → vip/big, vip/secret-preview');
    expect(r.config).toBeDefined();
  });

  let gw: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    gw = await serve(mustLoad(yaml()));
  });
  afterAll(() => gw.close());
  const auth = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${DEV_KEY}`, ...extra });

  it('/v1/models (OpenAI shape) lists the alias without its targets outside the role', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: auth() });
    const text = await res.text();
    expect(res.status).toBe(200);
    const data = (JSON.parse(text) as { data: Array<{ id: string; targets?: string[] }> }).data;
    expect(data.map((m) => m.id)).toEqual(['local/echo', 'team/smart']);
    expect(data[1]!.targets).toEqual(['local/echo']);
    expect(text).not.toContain('vip/');
  });

  it('/v1/models (Anthropic shape) names nothing outside the role either', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: auth({ 'anthropic-version': '2023-06-01' }) });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain('vip/');
  });

  it('the alias still routes to its targets; the target by its own name stays a 403', async () => {
    const viaAlias = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth({ 'content-type': 'application/json' }),
      body: JSON.stringify({ model: 'team/smart', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(viaAlias.status).toBe(200);
    await viaAlias.text();
    const direct = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: auth({ 'content-type': 'application/json' }),
      body: JSON.stringify({ model: 'vip/big', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
  });
});
