import { describe, expect, it } from 'vitest';
import {
  BEDROCK_CLAUDE,
  NO_BETAS,
  platformBetas,
  platformBody,
  VERTEX_CLAUDE,
} from '../../../src/providers/claude-platform.js';

/** What Claude Code 2.1.197 sends with a thinking model (test/fixtures/claude-code/2.1.197/). */
const CLAUDE_CODE_BETAS =
  'claude-code-20250219,interleaved-thinking-2025-05-14,thinking-token-count-2026-05-13,' +
  'context-management-2025-06-27,prompt-caching-scope-2026-01-05,mid-conversation-system-2026-04-07,' +
  'effort-2025-11-24,advanced-tool-use-2025-11-20';

describe('platformBetas', () => {
  it("keeps Claude Code's betas Bedrock takes, tool search renamed; lists the rest", () => {
    expect(platformBetas(BEDROCK_CLAUDE, { 'anthropic-beta': CLAUDE_CODE_BETAS }, undefined)).toEqual({
      kept: [
        'interleaved-thinking-2025-05-14',
        'context-management-2025-06-27',
        'effort-2025-11-24',
        'tool-search-tool-2025-10-19',
      ],
      dropped: [
        'anthropic-beta:claude-code-20250219',
        'anthropic-beta:thinking-token-count-2026-05-13',
        'anthropic-beta:prompt-caching-scope-2026-01-05',
        'anthropic-beta:mid-conversation-system-2026-04-07',
      ],
      systemAsUser: true,
    });
  });

  it('keeps fewer on Vertex (no effort beta); a repeated header and spaces are one list', () => {
    const headers = {
      'anthropic-beta': [' effort-2025-11-24 ,interleaved-thinking-2025-05-14', 'tool-search-tool-2025-10-19'],
    };
    expect(platformBetas(VERTEX_CLAUDE, headers, undefined)).toEqual({
      kept: ['interleaved-thinking-2025-05-14', 'tool-search-tool-2025-10-19'],
      dropped: ['anthropic-beta:effort-2025-11-24'],
      systemAsUser: false,
    });
  });

  it("adds the provider's anthropic_betas.allow; a renamed beta sent twice goes up once", () => {
    const allowing = ['fast-mode-2026-02-01'];
    const headers = {
      'anthropic-beta': 'fast-mode-2026-02-01,advanced-tool-use-2025-11-20,tool-search-tool-2025-10-19',
    };
    expect(platformBetas(VERTEX_CLAUDE, headers, allowing)).toEqual({
      kept: ['fast-mode-2026-02-01', 'tool-search-tool-2025-10-19'],
      dropped: [],
      systemAsUser: false,
    });
    expect(platformBetas(VERTEX_CLAUDE, headers, undefined).dropped).toEqual(['anthropic-beta:fast-mode-2026-02-01']);
  });

  it('no header: nothing to keep or list; the caller text listed is bounded', () => {
    expect(platformBetas(BEDROCK_CLAUDE, {}, undefined)).toBe(NO_BETAS);
    const many = Array.from({ length: 40 }, (_, i) => `x-${i}`).join(',');
    const long = 'y'.repeat(101);
    const { dropped } = platformBetas(BEDROCK_CLAUDE, { 'anthropic-beta': `${long},${many}` }, undefined);
    expect(dropped).toHaveLength(32);
    expect(dropped[0]).toBe('anthropic-beta:x-0');
  });
});

describe('platformBody', () => {
  const body = (fields: string) => Buffer.from(`{"model":"m",${fields},"max_tokens":9}`);

  it('removes the fields the platform does not take and lists them; the other bytes stay', () => {
    const dropped: string[] = [];
    const out = platformBody(
      BEDROCK_CLAUDE,
      body('"service_tier":"auto", "metadata":{"user_id":"u"},"container":"c","output_config":{"effort":"high"}'),
      NO_BETAS,
      ['model'],
      dropped,
    );
    expect(out.toString()).toBe('{"metadata":{"user_id":"u"},"output_config":{"effort":"high"},"max_tokens":9}');
    expect(dropped).toEqual(['service_tier', 'container']);
  });

  it('context_management goes only with a context-management beta; stream only where the platform takes it', () => {
    const cm = '"context_management":{"edits":[]},"stream":true';
    const kept = { ...NO_BETAS, kept: ['context-management-2025-06-27'] };
    const run = (betas = NO_BETAS) => {
      const dropped: string[] = [];
      return { body: platformBody(VERTEX_CLAUDE, body(cm), betas, ['model'], dropped).toString(), dropped };
    };
    expect(run(kept)).toEqual({ body: `{${cm},"max_tokens":9}`, dropped: [] });
    expect(run()).toEqual({ body: '{"stream":true,"max_tokens":9}', dropped: ['context_management'] });
    const dropped: string[] = [];
    expect(platformBody(BEDROCK_CLAUDE, body(cm), kept, ['model', 'stream'], dropped).toString()).toBe(
      '{"context_management":{"edits":[]},"max_tokens":9}',
    );
    expect(dropped).toEqual([]);
  });

  it("a caller's anthropic_beta field is dropped; anthropic_version is left for the kind", () => {
    const dropped: string[] = [];
    const out = platformBody(
      BEDROCK_CLAUDE,
      body('"anthropic_beta":["x"],"anthropic_version":"v"'),
      NO_BETAS,
      [],
      dropped,
    );
    expect(out.toString()).toBe('{"anthropic_version":"v","max_tokens":9}');
    expect(dropped).toEqual(['model', 'anthropic_beta']);
  });

  it('mid-conversation system messages become user turns when the platform lacks that beta', () => {
    const messages =
      '"messages":[{"role":"user","content":"hi"},{"content":[{"type":"text","text":"\\"role\\":\\"system\\""}],' +
      ' "role" : "system"},{"role":"assistant","content":"{\\"role\\":\\"system\\"}"}]';
    const betas = { ...NO_BETAS, systemAsUser: true };
    expect(platformBody(VERTEX_CLAUDE, body(messages), betas, ['model'], []).toString()).toBe(
      `{${messages.replace('"role" : "system"', '"role" : "user"')},"max_tokens":9}`,
    );
    expect(platformBody(VERTEX_CLAUDE, body(messages), NO_BETAS, ['model'], []).toString()).toBe(
      `{${messages},"max_tokens":9}`,
    );
  });
});
