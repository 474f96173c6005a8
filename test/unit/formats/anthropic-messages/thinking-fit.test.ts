import { describe, expect, it } from 'vitest';
import { decodeAnthropicRequest } from '../../../../src/formats/anthropic-messages/request-decode.js';
import { anthropicPassThrough } from '../../../../src/formats/anthropic-messages/pass-through.js';
import { budgetWithin } from '../../../../src/formats/anthropic-messages/thinking-fit.js';
import type { EncodeTarget } from '../../../../src/formats/types.js';
import { parseJsonStrictMembers } from '../../../../src/core/parse-json-strict.js';

/** The pass-through body for `text` sent to `target`, and the edits it names. */
function prepare(text: string, target: EncodeTarget) {
  const parsed = JSON.parse(text);
  const edits = { dropped: [] as string[], rewritten: [] as string[] };
  const raw = Buffer.from(text);
  const { members } = parseJsonStrictMembers(raw);
  const body = anthropicPassThrough.prepareBody(
    { raw, members, parsed, chat: decodeAnthropicRequest(parsed) },
    target,
    edits,
  );
  return { body: body.toString('utf8'), ...edits };
}

const MESSAGES = '"messages":[{"role":"user","content":"hi"}]';
const CLAUDE_CODE =
  `{"model":"team/claude", "max_tokens":32000,${MESSAGES},` +
  '"thinking":{"type":"adaptive"},"output_config":{"effort":"high"}}';

describe('Anthropic pass-through: Claude thinking fitted to the model', () => {
  it('adaptive with an effort → the effort budget on Sonnet 4.5, the effort dropped; other bytes as sent', () => {
    const out = prepare(CLAUDE_CODE, { model: 'claude-sonnet-4-5' });
    expect(out.body).toBe(
      `{"model":"claude-sonnet-4-5", "max_tokens":32000,${MESSAGES},` +
        '"thinking":{"type":"enabled","budget_tokens":16384}}',
    );
    expect(out.rewritten).toEqual(['thinking']);
    expect(out.dropped).toEqual(['output_config.effort']);
  });

  it('on Bedrock and Vertex ids of Sonnet 4.5 too; Opus 4.5 keeps its effort', () => {
    for (const model of ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5@20250929'])
      expect(prepare(CLAUDE_CODE, { model }).body, model).toContain(
        '"thinking":{"type":"enabled","budget_tokens":16384}}',
      );
    const opus = prepare(CLAUDE_CODE, { model: 'claude-opus-4-5-20251101' });
    expect(opus.body).toContain(
      '"thinking":{"type":"enabled","budget_tokens":16384},"output_config":{"effort":"high"}}',
    );
    expect(opus.dropped).toEqual([]);
  });

  it('the budget stays under max_tokens; without room for 1024 thinking is dropped', () => {
    const small = CLAUDE_CODE.replace('32000', '2000').replace('"high"', '"max"');
    expect(prepare(small, { model: 'claude-haiku-4-5' }).body).toContain('"budget_tokens":1999}');
    const none = prepare(CLAUDE_CODE.replace('32000', '1024'), { model: 'claude-haiku-4-5' });
    expect(none.body).toBe(`{"model":"claude-haiku-4-5", "max_tokens":1024,${MESSAGES}}`);
    expect(none.dropped).toEqual(['thinking', 'output_config.effort']);
    expect(none.rewritten).toEqual([]);
  });

  it('effort budgets follow the translation (low 1024 … max 65536), high when unnamed', () => {
    expect([undefined, 'low', 'medium', 'high', 'xhigh', 'max'].map((e) => budgetWithin(e, 100_000))).toEqual([
      16384, 1024, 4096, 16384, 32768, 65536,
    ]);
    expect(budgetWithin('low', 1024)).toBeUndefined();
  });

  it('enabled → adaptive on Opus 4.7 (display kept); other output_config members stay', () => {
    const text =
      `{"model":"a","max_tokens":9000,${MESSAGES},"thinking":{"type":"enabled","budget_tokens":4096,` +
      '"display":"omitted"}}';
    const out = prepare(text, { model: 'claude-opus-4-7' });
    expect(out.body).toBe(
      `{"model":"claude-opus-4-7","max_tokens":9000,${MESSAGES},"thinking":{"type":"adaptive","display":"omitted"}}`,
    );
    expect(out.rewritten).toEqual(['thinking']);
    const format = '{"type":"json_schema","schema":{"type":"object","additionalProperties":false}}';
    const withFormat = CLAUDE_CODE.replace('{"effort":"high"}', `{"effort":"low", "format":${format}}`);
    expect(prepare(withFormat, { model: 'claude-sonnet-4-5' }).body).toContain(
      `"thinking":{"type":"enabled","budget_tokens":1024},"output_config":{"format":${format}}}`,
    );
  });

  it('Sonnet 4.6, a non-Claude name and a body without thinking: bytes unchanged but model', () => {
    for (const model of ['claude-sonnet-4-6', 'anthropic.claude-opus-4-6-v1', 'MiniMax-M2']) {
      const out = prepare(CLAUDE_CODE, { model });
      expect(out.body, model).toBe(CLAUDE_CODE.replace('team/claude', model));
      expect([...out.dropped, ...out.rewritten], model).toEqual([]);
    }
    const plain = `{"model":"x","max_tokens":10,${MESSAGES}}`;
    expect(prepare(plain, { model: 'claude-3-5-haiku' }).body).toBe(plain.replace('"x"', '"claude-3-5-haiku"'));
  });

  it("the model's reasoning: false drops thinking and effort; true leaves the name to decide", () => {
    const off = prepare(CLAUDE_CODE, { model: 'MiniMax-M2', reasoning: false });
    expect(off.body).toBe(`{"model":"MiniMax-M2", "max_tokens":32000,${MESSAGES}}`);
    expect(off.dropped).toEqual(['thinking', 'output_config.effort']);
    expect(prepare(CLAUDE_CODE, { model: 'claude-sonnet-4-5', reasoning: true }).rewritten).toEqual(['thinking']);
  });
});
