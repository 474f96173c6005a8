/**
 * A finished request's log line and telemetry wait for the end of the turn (the batching itself:
 * test/unit/core/turn-batch.test.ts), and at process exit they are made before the log writers flush.
 */
import { describe, expect, it } from 'vitest';
import { atEndOfTurn, runQueued } from '../../../src/observe/end-of-turn.js';
import { outputWriter } from '../../../src/observe/log-writer.js';

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
});
