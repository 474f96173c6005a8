import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { budgetCounterKey } from '../../src/budget/plan.js';
import { periodWindow } from '../../src/budget/periods.js';
import { MemoryStore } from '../../src/state/memory-store.js';
import type { BudgetRow } from '../../src/cli/commands/budgets.js';
import { cli } from './capture.js';

function setup(): { file: string; state: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-budgets-'));
  const state = join(dir, 'state.json');
  const file = join(dir, 'gateway.yaml');
  writeFileSync(
    file,
    `
state: { path: ${state} }
providers:
  local: { api: mock, models: { echo: { context_window: 100, price: { input: 1, output: 1 } } } }
roles:
  dev: { models: ["*"] }
keys:
  - { id: alice, key: "alice-key-0001", role: dev }
  - { id: bob, key: "bob-key-000002", role: dev }
budgets:
  - { id: team-month, scope: { role: dev }, limit_usd: 10, period: month }
  - { id: per-key-day, scope: { each_key_of_role: dev }, limit_usd: 1, period: day, timezone: Europe/Berlin }
  - { id: forever, scope: { global: true }, limit_usd: 100, period: total, mode: warn }
`,
  );
  return { file, state };
}

describe('gateway budgets', () => {
  test('reads spend from the state file: one row per budget, per key for each_key_of_role', async () => {
    const { file, state } = setup();
    const now = Date.now();
    const store = new MemoryStore({ path: state });
    await store.add([
      { key: budgetCounterKey('team-month', '*', periodWindow('month', 'UTC', now).id), amount: 2_500_000_000 },
      {
        key: budgetCounterKey('per-key-day', 'bob', periodWindow('day', 'Europe/Berlin', now).id),
        amount: 1_200_000_000,
      },
    ]);
    await store.close();

    const r = await cli(['budgets', '--config', file, '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out.join('\n')) as BudgetRow[];
    expect(rows.map((x) => [x.id, x.scope, x.spentUsd, x.limitUsd, x.remainingUsd, x.mode])).toEqual([
      ['team-month', 'role "dev"', 2.5, 10, 7.5, 'enforce'],
      ['per-key-day', 'key "alice" (each key of role "dev")', 0, 1, 1, 'enforce'],
      ['per-key-day', 'key "bob" (each key of role "dev")', 1.2, 1, 0, 'enforce'],
      ['forever', 'global', 0, 100, 100, 'warn'],
    ]);
    expect(rows[0].resetsAt).toBe(new Date(periodWindow('month', 'UTC', now).endMs!).toISOString());
    expect(rows[3].resetsAt).toBeNull();
  });

  test('prints a table', async () => {
    const { file } = setup();
    const r = await cli(['budgets', '-c', file]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^BUDGET\s+SCOPE\s+PERIOD\s+SPENT\s+LIMIT\s+REMAINING\s+RESETS\s+MODE$/);
    expect(r.out).toHaveLength(5);
    expect(r.out[4]).toMatch(/^forever\s+global\s+total\s+\$0\.0000\s+\$100\s+\$100\.0000\s+never\s+warn$/);
  });
});
