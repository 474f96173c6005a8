/**
 * `gateway budgets`: each budget's spend in its current period, its limit and when it resets,
 * read from the same state store the gateway uses (the embedded store's file, as last flushed,
 * or Redis). A budget with scope each_key_of_role has one row per key of that role.
 */
import { Command } from 'commander';
import { nanoToUsd } from '../../budget/cost.js';
import { budgetCounterKey, describeScope } from '../../budget/plan.js';
import { periodWindow } from '../../budget/periods.js';
import type { BudgetConfig, GatewayConfig } from '../../config/types.js';
import { createStore } from '../../state/create-store.js';
import type { StateStore } from '../../state/store.js';
import { requireConfig } from '../config-report.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { colors, table, type CliIO } from '../io.js';

export interface BudgetRow {
  id: string;
  scope: string;
  period: string;
  periodId: string;
  mode: BudgetConfig['mode'];
  spentUsd: number;
  limitUsd: number;
  remainingUsd: number;
  /** ISO time of the next reset; null for period total. */
  resetsAt: string | null;
}

export function budgetsCommand(io: CliIO): Command {
  return new Command('budgets')
    .description("show each budget's spend, limit and reset time (from the gateway's state store)")
    .option('-c, --config <file>', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (opts: { config?: string; json?: boolean }) => {
      const { config } = await requireConfig(opts.config, io);
      const store = createStore(config.state);
      let rows: BudgetRow[];
      try {
        rows = await budgetRows(config, store, Date.now());
      } catch (e) {
        io.err(`error: cannot read the ${config.state.store} state store: ${(e as Error).message}`);
        throw new CliExit(ExitCode.FAILURE);
      } finally {
        await store.close().catch(() => undefined);
      }
      if (opts.json) {
        io.out(JSON.stringify(rows, null, 2));
        return;
      }
      if (rows.length === 0) {
        io.out('no budgets are configured');
        return;
      }
      const c = colors(io);
      const lines = table(
        ['BUDGET', 'SCOPE', 'PERIOD', 'SPENT', 'LIMIT', 'REMAINING', 'RESETS', 'MODE'],
        rows.map((r) => [r.id, r.scope, r.periodId, `$${r.spentUsd.toFixed(4)}`, `$${r.limitUsd}`, `$${r.remainingUsd.toFixed(4)}`, r.resetsAt ?? 'never', r.mode]),
      );
      io.out(c.bold(lines[0]));
      rows.forEach((r, i) => io.out(r.remainingUsd <= 0 ? c.red(lines[i + 1]) : lines[i + 1]));
    });
}

export async function budgetRows(config: GatewayConfig, store: StateStore, now: number): Promise<BudgetRow[]> {
  const instances: Array<{ b: BudgetConfig; instance: string }> = [];
  for (const b of config.budgets) {
    if (b.scope.kind === 'each_key_of_role') {
      const role = b.scope.role;
      for (const k of config.keys) if (k.role === role) instances.push({ b, instance: k.id });
    } else instances.push({ b, instance: '*' });
  }
  const windows = instances.map(({ b }) => periodWindow(b.period, b.timezone, now));
  const values = await store.get(instances.map(({ b, instance }, i) => budgetCounterKey(b.id, instance, windows[i].id)));
  return instances.map(({ b, instance }, i) => {
    const spentUsd = nanoToUsd(values[i]);
    return {
      id: b.id,
      scope: describeScope(b.scope, instance),
      period: b.period,
      periodId: windows[i].id,
      mode: b.mode,
      spentUsd,
      limitUsd: b.limitUsd,
      remainingUsd: Math.max(0, b.limitUsd - spentUsd),
      resetsAt: windows[i].endMs !== undefined ? new Date(windows[i].endMs!).toISOString() : null,
    };
  });
}
