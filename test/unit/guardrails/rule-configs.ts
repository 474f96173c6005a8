/** Guardrail configs as normalise() produces them, for the guardrail tests. */
import type { GuardrailConfig } from '../../../src/config/types.js';
import { compileGuardrails, type CompiledGuardrail, type GuardrailScope } from '../../../src/guardrails/rules.js';

export const scope: GuardrailScope = { role: 'dev', keyId: 'k1', modelId: 'local/echo' };

type Check = GuardrailConfig['check'];

export function guardrail(
  id: string,
  check: Check,
  action: GuardrailConfig['action'],
  extra: Partial<GuardrailConfig> = {},
): GuardrailConfig {
  return { id, appliesTo: 'both', match: {}, check, action, ...extra };
}

export const detectors = (...names: string[]): Check => ({ type: 'detectors', detectors: names });
export const regex = (pattern: string, flags = ''): Check => ({ type: 'regex', pattern, flags });
export const keywords = (words: string[], caseSensitive = false): Check => ({ type: 'keywords', words, caseSensitive });
export const webhook = (
  url: string,
  timeoutMs = 2000,
  onError: 'fail_open' | 'fail_closed' = 'fail_closed',
): Check => ({ type: 'webhook', url, timeoutMs, onError });

export const compile = (...configs: GuardrailConfig[]): CompiledGuardrail[] => compileGuardrails(configs);
