/**
 * Hot reload: a valid file is applied to new requests while a stream in flight finishes on the old config; an invalid
 * file changes nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startServe, type RunningServe } from '../../src/cli/commands/serve.js';
import { createLogger } from '../../src/observe/logger.js';
import { capture } from './capture.js';

const KEY = 'reload-test-key-0001';

const yaml = (models: string) => `
state: { persist: false }
providers:
  local:
    api: mock
    mock: { latency_ms: 0, chunk_delay_ms: 40 }
    models: { ${models} }
roles:
  dev: { models: ["local/*"] }
keys:
  - { id: dev, key: "${KEY}", role: dev }
`;

async function chat(url: string, model: string, stream = false): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'one two three four five six' }] }),
  });
}

describe('config reload', () => {
  let running: RunningServe | undefined;
  afterEach(async () => {
    await running?.close(100);
    running = undefined;
  });

  test(
    'valid file: new requests use it, the stream in flight finishes on the old one; invalid file: old config ' +
      'stays',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gw-reload-'));
      const file = join(dir, 'gateway.yaml');
      writeFileSync(file, yaml('echo: { context_window: 1000 }'));
      const lines: string[] = [];
      const c = capture();
      running = await startServe(
        { config: file, host: '127.0.0.1', port: 0, logger: createLogger({ write: (l) => lines.push(l) }) },
        c.io,
      );

      // A slow stream (6 chunks, 40 ms apart) on the model the new config removes.
      const inFlight = await chat(running.url, 'local/echo', true);
      expect(inFlight.status).toBe(200);
      const body = inFlight.text();

      writeFileSync(file, yaml('echo2: { context_window: 1000 }'));
      expect(await running.reload()).toBe(true);
      expect((await chat(running.url, 'local/echo2')).status).toBe(200);
      expect((await chat(running.url, 'local/echo')).status).toBe(404);
      const text = await body;
      expect(text).toContain('data: [DONE]');
      expect(text.match(/"content":"/g)?.length).toBeGreaterThanOrEqual(6);

      writeFileSync(file, 'providers: {\n  broken: [');
      expect(await running.reload()).toBe(false);
      expect((await chat(running.url, 'local/echo2')).status).toBe(200);
      const failed = lines
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'config reload failed: keeping the current config');
      expect(failed.problems[0]).toMatch(/gateway\.yaml:\d+:\d+ {2}.*YAML syntax error/);
      expect(lines.some((l) => l.includes('"msg":"config reloaded"'))).toBe(true);
    },
  );

  test('--watch reloads when the file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-watch-'));
    const file = join(dir, 'gateway.yaml');
    writeFileSync(file, yaml('echo: { context_window: 1000 }'));
    running = await startServe(
      { config: file, host: '127.0.0.1', port: 0, watch: true, logger: createLogger({ write: () => undefined }) },
      capture().io,
    );
    writeFileSync(file, yaml('echo3: { context_window: 1000 }'));
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await chat(running.url, 'local/echo3')).status;
    }
    expect(status).toBe(200);
  });
});
