/**
 * `gateway budgets`: each budget's spend in its current period, its limit and when it resets,
 * read from the same state store the gateway uses (the embedded store's file, as last flushed,
 * or Redis). A budget with scope each_key_of_role has one row per key of that role.
 */
import { Command } from 'commander';
import { budgetRows, type BudgetRow } from '../../budget/report.js';
import { createStore } from '../../state/create-store.js';
import { requireConfig } from '../config-report.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { colors, table, type CliIO } from '../io.js';

export function budgetsCommand(io: CliIO): Command {
  return new Command('budgets')
    .description("show each budget's spend, limit and reset time (from the gateway's state store)")
    .option('-c, --config <file>', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (opts: { config?: string; json?: boolean }) => {
      const { config } = await requireConfig(opts.config, io, { quiet: true });
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
        rows.map((r) => [
          r.id,
          r.scope,
          r.periodId,
          `$${r.spentUsd.toFixed(4)}`,
          `$${r.limitUsd}`,
          `$${r.remainingUsd.toFixed(4)}`,
          r.resetsAt ?? 'never',
          r.mode,
        ]),
      );
      io.out(c.bold(lines[0]));
      rows.forEach((r, i) => {
        io.out(r.remainingUsd <= 0 ? c.red(lines[i + 1]) : lines[i + 1]);
      });
    });
}

export type { BudgetRow };
