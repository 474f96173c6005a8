/**
 * A finished request's log line and telemetry wait for the end of the turn: run then, in order,
 * all of them, even past a failing one, and at process exit before the log writers flush.
 */
import { describe, expect, it } from 'vitest';
import { atEndOfTurn, runQueued } from '../../../src/observe/end-of-turn.js';
import { outputWriter } from '../../../src/observe/log-writer.js';

const turn = () => new Promise((r) => setImmediate(r));

describe('atEndOfTurn', () => {
  // First in the file: the writer's exit hook exists before the first task is queued, as in the gateway.
  it('runs at process exit before a log writer flushes, so the line is written', () => {
    const chunks: string[] = [];
    const out = outputWriter((c) => chunks.push(c));
    atEndOfTurn(() => out.write('request line\n'));
    // What the process does on exit: every hook, in order.
    for (const hook of process.listeners('exit')) if (hook === runQueued || hook.name === 'flush') hook(0);
    expect(chunks.join('')).toBe('request line\n');
    void out.close();
  });

  it('runs the tasks of a turn after it, in order, with those they queue', async () => {
    const ran: string[] = [];
    atEndOfTurn(() => ran.push('a'));
    atEndOfTurn(() => {
      ran.push('b');
      atEndOfTurn(() => ran.push('c'));
    });
    expect(ran).toEqual([]);
    await turn();
    expect(ran).toEqual(['a', 'b', 'c']);
    atEndOfTurn(() => ran.push('d'));
    await turn();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('runs the others when one throws, and reports it as a warning', async () => {
    const ran: string[] = [];
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      atEndOfTurn(() => ran.push('a'));
      atEndOfTurn(() => {
        throw new Error('report failed');
      });
      atEndOfTurn(() => ran.push('c'));
      await turn();
      await turn(); // warnings are emitted on the next tick
      expect(ran).toEqual(['a', 'c']);
      expect(warnings.map((w) => w.message)).toContain('report failed');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
