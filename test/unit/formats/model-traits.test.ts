import { describe, expect, it } from 'vitest';
import {
  anthropicModelHasOutputFormat,
  anthropicModelThinks,
  anthropicModelThinksAdaptively,
  claudeName,
  claudeThinkingModes,
  openaiModelReasons,
} from '../../../src/formats/model-traits.js';

describe('model traits guessed from the upstream name', () => {
  it(
    'OpenAI reasoning models: o-series and gpt-5, not the -chat variants; router prefixes looked through; config ' +
      'wins',
    () => {
      for (const n of [
        'o1',
        'o3-mini',
        'o4-mini-2025-04-16',
        'gpt-5',
        'gpt-5-mini',
        'gpt-5.1-codex',
        'openai/gpt-5',
        'GPT-5',
      ])
        expect(openaiModelReasons(n), n).toBe(true);
      for (const n of [
        'gpt-4o',
        'gpt-4.1-mini',
        'gpt-5-chat-latest',
        'llama-3.1-70b',
        'omni-moderation',
        'deepseek-r1',
      ])
        expect(openaiModelReasons(n), n).toBe(false);
      expect(openaiModelReasons('deepseek-r1', true)).toBe(true);
      expect(openaiModelReasons('gpt-5', false)).toBe(false);
    },
  );

  it("Claude thinking: 3.7 and later, and other hosts' models", () => {
    for (const n of [
      'claude-3-7-sonnet-20250219',
      'claude-sonnet-4-5',
      'claude-opus-4-1-20250805',
      'claude-haiku-4-5',
      'MiniMax-M2',
    ])
      expect(anthropicModelThinks(n), n).toBe(true);
    for (const n of ['claude-3-5-haiku-20241022', 'claude-3-opus-20240229', 'claude-2.1', 'claude-instant-1.2'])
      expect(anthropicModelThinks(n), n).toBe(false);
    expect(anthropicModelThinks('claude-3-5-haiku-20241022', true)).toBe(true);
  });

  it('Claude ids on Bedrock and Vertex are read as the Claude model they name', () => {
    expect(claudeName('us.anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe('claude-3-5-sonnet-20240620');
    expect(claudeName('arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0')).toBe(
      'claude-3-haiku-20240307',
    );
    expect(claudeName('claude-sonnet-4-5@20250929')).toBe('claude-sonnet-4-5');
    expect(claudeName('claude-3-5-haiku@20241022')).toBe('claude-3-5-haiku');
    expect(claudeName('openrouter/anthropic/claude-3.5-sonnet')).toBe('claude-3.5-sonnet');
    // Thinking is refused by Claude 3.5 on every platform, taken by 3.7 and later.
    for (const n of ['anthropic.claude-3-5-sonnet-20240620-v1:0', 'claude-3-5-haiku@20241022'])
      expect(anthropicModelThinks(n), n).toBe(false);
    for (const n of ['eu.anthropic.claude-3-7-sonnet-20250219-v1:0', 'claude-opus-4-1@20250805'])
      expect(anthropicModelThinks(n), n).toBe(true);
    // Native structured output stays with first-party ids: every platform takes the forced tool.
    expect(anthropicModelHasOutputFormat('claude-sonnet-4-5@20250929')).toBe(false);
    expect(anthropicModelHasOutputFormat('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(false);
  });

  it('adaptive thinking: Claude 4.6 and later (and newer families), on every platform’s ids', () => {
    for (const n of [
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-opus-4-7',
      'claude-sonnet-5',
      'claude-mythos-preview',
      'anthropic.claude-opus-4-6-v1',
      'us.anthropic.claude-sonnet-4-6',
      'claude-opus-4-6@20260205',
    ])
      expect(anthropicModelThinksAdaptively(n), n).toBe(true);
    for (const n of [
      'claude-sonnet-4-5',
      'claude-opus-4-5-20251101',
      'claude-haiku-4-5-20251001',
      'claude-sonnet-4-20250514',
      'claude-opus-4-1-20250805',
      'claude-3-7-sonnet-20250219',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      'eu.anthropic.claude-3-5-sonnet-20240620-v1:0',
      'claude-sonnet-4-5@20250929',
    ])
      expect(anthropicModelThinksAdaptively(n), n).toBe(false);
  });

  it('Claude thinking modes: adaptive 4.6+, a budget before Opus 4.7 and 5, effort on Opus 4.5 and 4.6+', () => {
    const modes = (n: string) => {
      const m = claudeThinkingModes(n);
      return m && `${m.adaptive ? 'A' : '-'}${m.enabled ? 'E' : '-'}${m.effort ? 'F' : '-'}`;
    };
    const expected: Record<string, string | undefined> = {
      'claude-3-5-sonnet-20241022': '---',
      'claude-3-7-sonnet-20250219': '-E-',
      'claude-sonnet-4-20250514': '-E-',
      'claude-opus-4-1-20250805': '-E-',
      'claude-haiku-4-5-20251001': '-E-',
      'claude-sonnet-4-5': '-E-',
      'claude-opus-4-5-20251101': '-EF',
      'claude-sonnet-4-6': 'AEF',
      'claude-opus-4-6': 'AEF',
      'claude-opus-4-7': 'A-F',
      'claude-sonnet-5': 'A-F',
      'claude-fable-5': 'A-F',
      'anthropic.claude-sonnet-4-5-20250929-v1:0': '-E-',
      'us.anthropic.claude-opus-4-7': 'A-F',
      'anthropic.claude-opus-4-6-v1': 'AEF',
      'claude-sonnet-4-5@20250929': '-E-',
      'claude-opus-4-6@20260205': 'AEF',
      'MiniMax-M2': undefined,
      'minimax/minimax-m2': undefined,
    };
    for (const [name, want] of Object.entries(expected)) expect(modes(name), name).toBe(want);
  });

  it('native structured output: Opus 4.1, Claude 4.5 and later', () => {
    for (const n of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-haiku-4-5-20251001',
      'claude-opus-4-1',
      'claude-opus-4-6',
      'claude-opus-5',
      'anthropic/claude-sonnet-4-5',
    ]) {
      expect(anthropicModelHasOutputFormat(n), n).toBe(true);
    }
    for (const n of [
      'claude-sonnet-4-20250514',
      'claude-opus-4-20250514',
      'claude-sonnet-4-1',
      'claude-3-7-sonnet-20250219',
      'claude-3-5-haiku-20241022',
      'MiniMax-M2',
      'claude-x',
    ]) {
      expect(anthropicModelHasOutputFormat(n), n).toBe(false);
    }
  });
});
