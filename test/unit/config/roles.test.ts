import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../../src/config/load.js';

const yaml = (role: string) => `
providers:
  local: { api: mock, models: { echo: { context_window: 8192 } } }
roles:
  dev: ${role}
keys:
  - { id: k, key: a-gateway-key-0001, role: dev }
`;

describe('roles: server_tools and mcp_servers', () => {
  it('default to server tools allowed and MCP servers denied', () => {
    expect(loadConfigText(yaml('{ models: ["*"] }'), 't.yaml', {}).config!.roles.get('dev')).toMatchObject({
      serverTools: 'allow',
      mcpServers: 'deny',
    });
  });
  it('take allow or deny', () => {
    const r = loadConfigText(yaml('{ models: ["*"], server_tools: deny, mcp_servers: allow }'), 't.yaml', {});
    expect(r.issues).toEqual([]);
    expect(r.config!.roles.get('dev')).toMatchObject({ serverTools: 'deny', mcpServers: 'allow' });
  });
  it('refuse anything else, naming the field', () => {
    const r = loadConfigText(yaml('{ models: ["*"], mcp_servers: yes }'), 't.yaml', {});
    expect(r.config).toBeUndefined();
    expect(r.issues.some((i) => i.path.includes('mcp_servers'))).toBe(true);
  });
});
