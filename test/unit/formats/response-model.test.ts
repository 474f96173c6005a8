import { describe, expect, it } from 'vitest';
import { renameModeFor, renameModelIn, StreamModelRenamer } from '../../../src/formats/response-model.js';

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
    const r = new StreamModelRenamer('team/gpt', 'every-event');
    expect(r.run('data: {"model":"a","choices":[]}\n\ndata: {"model":"a"}\n\n')).toBe(
      'data: {"model":"team/gpt","choices":[]}\n\ndata: {"model":"team/gpt"}\n\n',
    );
    expect(r.run('data: {"model":"a"}\n\n')).toBe('data: {"model":"team/gpt"}\n\n');
  });
  it('Anthropic: message_start only; later runs are left as they are', () => {
    const r = new StreamModelRenamer('team/claude', 'first-event');
    expect(r.run('event: ping\ndata: {"type":"ping"}\n\n')).toBe('event: ping\ndata: {"type":"ping"}\n\n');
    expect(r.run('event: message_start\ndata: {"type":"message_start","message":{"model":"claude-x"}}\n\n')).toContain(
      '"model":"team/claude"',
    );
    const later = 'event: content_block_start\ndata: {"content_block":{"type":"tool_use","input":{"model":"k"}}}\n\n';
    expect(r.run(later)).toBe(later);
  });
  it('Responses: the response object of every lifecycle event, never an item event', () => {
    const r = new StreamModelRenamer('team/codex', 'response-events');
    const created =
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":' +
      '{"id":"resp_1","instructions":"say \\"model\\": \\"x\\"","model":"gpt-5-2025-08-07","output":[]}}\n\n';
    const item =
      'event: response.output_item.done\ndata: {"type":"response.output_item.done","item":' +
      '{"type":"mcp_call","output":{"model":"kept"}}}\r\n\r\n';
    const completed =
      'data: {"response":{"model":"gpt-5-2025-08-07","output":[{"model":"kept"}]},' +
      '"type":"response.completed"}\n\n';
    expect(r.run(created + item + completed)).toBe(
      created.replace('"model":"gpt-5-2025-08-07"', '"model":"team/codex"') +
        item +
        completed.replace('"model":"gpt-5-2025-08-07"', '"model":"team/codex"'),
    );
    // Later runs are renamed too (in_progress, incomplete…).
    expect(r.run('data: {"type":"response.incomplete","response":{"model":"m"}}\n\n')).toBe(
      'data: {"type":"response.incomplete","response":{"model":"team/codex"}}\n\n',
    );
  });
  it('picks the mode by format', () => {
    expect(renameModeFor('openai-chat')).toBe('every-event');
    expect(renameModeFor('anthropic-messages')).toBe('first-event');
    expect(renameModeFor('openai-responses')).toBe('response-events');
  });
});
