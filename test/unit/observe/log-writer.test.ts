/**
 * Log lines batched per event-loop turn: one write per turn, in order, nothing held past the
 * turn, and nothing lost on close() or process exit.
 */
import { mkdtempSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  batchedLines,
  FILE_FLUSH_BYTES,
  FILE_FLUSH_MS,
  fileWriter,
  outputWriter,
} from '../../../src/observe/log-writer.js';
import { createLogger } from '../../../src/observe/logger.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('batchedLines', () => {
  it('writes the lines of one turn as one chunk at the end of the turn, in order', async () => {
    const chunks: string[] = [];
    const lines = batchedLines((c) => chunks.push(c));
    lines.write('a\n');
    lines.write('b\n');
    expect(chunks).toEqual([]);
    await turn();
    expect(chunks).toEqual(['a\nb\n']);
    lines.write('c\n');
    await turn();
    expect(chunks).toEqual(['a\nb\n', 'c\n']);
  });

  it('flush() writes what is pending at once, and later lines still go out', async () => {
    const chunks: string[] = [];
    const lines = batchedLines((c) => chunks.push(c));
    lines.write('a\n');
    lines.flush();
    lines.write('b\n');
    expect(chunks).toEqual(['a\n']);
    await turn();
    expect(chunks).toEqual(['a\n', 'b\n']);
  });
});

describe('outputWriter', () => {
  it('close() writes what is pending and removes its exit hook', async () => {
    const chunks: string[] = [];
    const exitHooks = process.listenerCount('exit');
    const out = outputWriter((c) => chunks.push(c));
    expect(process.listenerCount('exit')).toBe(exitHooks + 1);
    out.write('a\n');
    await out.close();
    expect(chunks).toEqual(['a\n']);
    expect(process.listenerCount('exit')).toBe(exitHooks);
  });

  it('writes what is pending when the process exits', () => {
    const chunks: string[] = [];
    const exitHooks = process.listeners('exit');
    const out = outputWriter((c) => chunks.push(c));
    const hook = process.listeners('exit').find((l) => !exitHooks.includes(l))!;
    out.write('a\n');
    hook(0);
    expect(chunks).toEqual(['a\n']);
    void out.close();
  });
});

describe('fileWriter', () => {
  it('has every line in the file once close() resolves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
    try {
      const path = join(dir, 'requests.jsonl');
      const file = fileWriter(path);
      const logger = createLogger({ write: file.write });
      for (let i = 0; i < 2000; i++) {
        logger.log('info', 'request', { correlation_id: `c${i}`, status: 200 });
        if (i % 500 === 0) await turn();
      }
      await file.close();
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines.map((l) => JSON.parse(l).correlation_id)).toEqual(Array.from({ length: 2000 }, (_, i) => `c${i}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes gathered lines within FILE_FLUSH_MS, and at once past FILE_FLUSH_BYTES, without close()', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-log-'));
    const path = join(dir, 'requests.jsonl');
    const file = fileWriter(path);
    const read = () => (existsSync(path) ? readFileSync(path, 'utf8') : '');
    try {
      file.write('{"a":1}\n');
      file.write('{"a":2}\n');
      expect(read()).toBe(''); // gathered, not written per line
      for (let i = 0; i < 40 && read() === ''; i++) await new Promise((r) => setTimeout(r, FILE_FLUSH_MS / 2));
      expect(read()).toBe('{"a":1}\n{"a":2}\n');
      const big = `${'x'.repeat(FILE_FLUSH_BYTES)}\n`;
      file.write(big); // handed to the stream on the spot, not after a timer
      for (let i = 0; i < 40 && read().length < 16 + big.length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(read().length).toBe(16 + big.length);
    } finally {
      await file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
