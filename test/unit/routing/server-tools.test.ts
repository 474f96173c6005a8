import { describe, expect, it } from 'vitest';
import type { RoleConfig } from '../../../src/config/types.js';
import type { GatewayError } from '../../../src/core/errors.js';
import { checkAccountTools, isServerTool } from '../../../src/routing/server-tools.js';

const role = (o: Partial<RoleConfig> = {}): RoleConfig => ({
  id: 'r',
  models: ['*'],
  serverTools: 'allow',
  mcpServers: 'deny',
  ...o,
});
const refusal = (r: RoleConfig, body: unknown): GatewayError | undefined => {
  try {
    checkAccountTools(r, body);
    return undefined;
  } catch (e) {
    return e as GatewayError;
  }
};

describe('isServerTool', () => {
  it('server-executed Anthropic tools (and unknown typed ones) are; plain and client-executed tools are not', () => {
    for (const type of [
      'web_search_20250305',
      'web_fetch_20250910',
      'code_execution_20250522',
      'mcp_toolset',
      'something_new_20300101',
    ])
      expect(isServerTool({ type }), type).toBe(true);
    for (const t of [
      { name: 'f' },
      { type: 'custom' },
      { type: 'function' },
      { type: 'bash_20250124' },
      { type: 'text_editor_20250728' },
      { type: 'computer_20250124' },
      { type: 'memory_20250818' },
      null,
      'x',
    ]) {
      expect(isServerTool(t), JSON.stringify(t)).toBe(false);
    }
  });
});

describe('checkAccountTools', () => {
  it(
    'mcp_servers: refused by default (403 naming the field), allowed when the role says so; empty or null needs ' +
      'nothing',
    () => {
      const e = refusal(role(), { mcp_servers: [{ type: 'url', url: 'https://x', name: 'n' }] });
      expect([e?.code, e?.status, e?.kind, e?.param]).toEqual(['tool_not_allowed', 403, 'permission', 'mcp_servers']);
      expect(refusal(role({ mcpServers: 'allow' }), { mcp_servers: [{ type: 'url' }] })).toBeUndefined();
      expect(refusal(role(), { mcp_servers: [] })).toBeUndefined();
      expect(refusal(role(), { mcp_servers: null })).toBeUndefined();
    },
  );
  it('server tools: allowed by default, refused naming tools[i] when the role denies them', () => {
    const tools = [
      { name: 'f', input_schema: {} },
      { type: 'bash_20250124', name: 'bash' },
      { type: 'web_search_20250305', name: 'web_search' },
    ];
    expect(refusal(role(), { tools })).toBeUndefined();
    const e = refusal(role({ serverTools: 'deny' }), { tools });
    expect([e?.code, e?.param]).toEqual(['tool_not_allowed', 'tools[2]']);
    expect(e?.message).toContain('web_search_20250305');
    expect(refusal(role({ serverTools: 'deny' }), { tools: tools.slice(0, 2) })).toBeUndefined();
  });
  it('Responses tools: hosted ones are server tools, Codex client tools are not, mcp follows the MCP rule', () => {
    const tools = [
      { type: 'function', name: 'f', parameters: {} },
      { type: 'custom', name: 'apply_patch' },
      { type: 'local_shell' },
      { type: 'web_search' },
    ];
    expect(refusal(role(), { tools })).toBeUndefined();
    expect(refusal(role({ serverTools: 'deny' }), { tools })?.param).toBe('tools[3]');
    expect(refusal(role({ serverTools: 'deny' }), { tools: tools.slice(0, 3) })).toBeUndefined();
    const mcp = [
      { type: 'function', name: 'f', parameters: {} },
      { type: 'mcp', server_url: 'https://x' },
    ];
    const e = refusal(role(), { tools: mcp });
    expect([e?.code, e?.status, e?.param]).toEqual(['tool_not_allowed', 403, 'tools[1]']);
    expect(refusal(role({ mcpServers: 'allow' }), { tools: mcp })).toBeUndefined();
  });
});
