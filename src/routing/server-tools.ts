/**
 * What a role may make the provider do on the gateway's own account, beyond generating text:
 * Anthropic server tools (web search, web fetch, code execution — run and billed at Anthropic;
 * Claude Code's WebSearch uses one) and `mcp_servers` (Anthropic connecting, from the gateway's
 * account, to any remote MCP server the caller names). Per role: server tools are allowed unless
 * `server_tools: deny`; `mcp_servers` are refused unless `mcp_servers: allow`.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview
 */

import type { RoleConfig } from '../config/types.js';
import { GatewayError } from '../core/errors.js';

/**
 * Anthropic-defined tools the *client* executes (the model only asks; the caller's machine runs
 * them), so nothing runs on the gateway's account. Every other typed tool counts as a server tool.
 */
const CLIENT_EXECUTED = /^(bash|text_editor|computer|memory)_/;
/** OpenAI Responses tools the client executes (Codex's shell and patch tools, computer use). */
const CLIENT_EXECUTED_RESPONSES = new Set([
  'local_shell',
  'shell',
  'apply_patch',
  'computer_use_preview',
  'computer_use',
]);

/** A tool definition that runs on the provider's side: typed, neither a plain tool nor client-executed. */
export function isServerTool(tool: unknown): boolean {
  if (typeof tool !== 'object' || tool === null) return false;
  const type = (tool as { type?: unknown }).type;
  if (type === undefined || type === null || type === 'custom' || type === 'function') return false;
  return typeof type !== 'string' || !(CLIENT_EXECUTED.test(type) || CLIENT_EXECUTED_RESPONSES.has(type));
}

/** Throws 403 `tool_not_allowed` naming the field when `body` asks for what `role` may not use. */
export function checkAccountTools(role: RoleConfig, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const { mcp_servers: mcp, tools } = body as { mcp_servers?: unknown; tools?: unknown };
  if (role.mcpServers !== 'allow' && mcp !== undefined && mcp !== null && !(Array.isArray(mcp) && mcp.length === 0)) {
    throw new GatewayError(
      'tool_not_allowed',
      `Your key's role "${role.id}" may not use 'mcp_servers' ` +
        "(connections from the gateway's account to remote MCP servers).",
      { param: 'mcp_servers' },
    );
  }
  if (!Array.isArray(tools)) return;
  // A Responses `mcp` tool is the same as `mcp_servers`: the provider connects from the gateway's account.
  const m = role.mcpServers === 'allow' ? -1 : tools.findIndex((t) => (t as { type?: unknown } | null)?.type === 'mcp');
  if (m >= 0) {
    throw new GatewayError(
      'tool_not_allowed',
      `Your key's role "${role.id}" may not use MCP tools ('tools[${m}]'): ` +
        "connections from the gateway's account to remote MCP servers.",
      { param: `tools[${m}]` },
    );
  }
  if (role.serverTools === 'allow') return;
  const i = tools.findIndex(isServerTool);
  if (i >= 0) {
    const type = JSON.stringify((tools[i] as { type?: unknown }).type);
    throw new GatewayError(
      'tool_not_allowed',
      `Your key's role "${role.id}" may not use server tools: ` +
        `'tools[${i}]' (type ${type}) runs on the gateway's account.`,
      {
        param: `tools[${i}]`,
      },
    );
  }
}
