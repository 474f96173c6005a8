import { describe, expect, it } from 'vitest';
import { renameModelIn, StreamModelRenamer } from '../../../src/formats/response-model.js';

describe('renameModelIn', () => {
  it('renames the first model member only, whatever its spacing or escapes', () => {
    expect(
      renameModelIn('{"id":"x","model" : "gpt-4o-mini-2024\\"x","content":[{"input":{"model":"keep"}}]}', 'team/fast'),
    ).toBe('{"id":"x","model":"team/fast","content":[{"input":{"model":"keep"}}]}');
  });
  it('never reads a model inside a string, and escapes the new name', () => {
    expect(renameModelIn('{"text":"say \\"model\\": \\"x\\"","model":"m"}', 'a"b$&')).toBe(
      '{"text":"say \\"model\\": \\"x\\"","model":"a\\"b$&"}',
    );
  });
});

describe('StreamModelRenamer', () => {
  it('OpenAI chat: every chunk of every run', () => {
    const r = new StreamModelRenamer('team/gpt', true);
    expect(r.run('data: {"model":"a","choices":[]}\n\ndata: {"model":"a"}\n\n')).toBe(
      'data: {"model":"team/gpt","choices":[]}\n\ndata: {"model":"team/gpt"}\n\n',
    );
    expect(r.run('data: {"model":"a"}\n\n')).toBe('data: {"model":"team/gpt"}\n\n');
  });
  it('Anthropic: message_start only; later runs are left as they are', () => {
    const r = new StreamModelRenamer('team/claude', false);
    expect(r.run('event: ping\ndata: {"type":"ping"}\n\n')).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(r.run('event: message_start\ndata: {"type":"message_start","message":{"model":"claude-x"}}\n\n')).toContain(
      '"model":"team/claude"',
    );
    const later = 'event: content_block_start\ndata: {"content_block":{"type":"tool_use","input":{"model":"k"}}}\n\n';
    expect(r.run(later)).toBe(later);
  });
});
