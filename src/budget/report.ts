/** Each budget instance's spend in its current period, as `gateway budgets` and the metrics show it. */
import type { BudgetConfig, GatewayConfig } from '../config/types.js';
import type { StateStore } from '../state/store.js';
import { nanoToUsd } from './cost.js';
import { budgetCounterKey, describeScope } from './plan.js';
import { periodWindow } from './periods.js';

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

export async function budgetRows(config: GatewayConfig, store: StateStore, now: number): Promise<BudgetRow[]> {
  const instances: Array<{ b: BudgetConfig; instance: string }> = [];
  for (const b of config.budgets) {
    if (b.scope.kind === 'each_key_of_role') {
      const role = b.scope.role;
      for (const k of config.keys) if (k.role === role) instances.push({ b, instance: k.id });
    } else instances.push({ b, instance: '*' });
  }
  const windows = instances.map(({ b }) => periodWindow(b.period, b.timezone, now));
  const values = await store.get(
    instances.map(({ b, instance }, i) => budgetCounterKey(b.id, instance, windows[i].id)),
  );
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
