import { loadConfigText } from '../../src/config/load.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { runQueued } from '../../src/observe/end-of-turn.js';
import { createLogger } from '../../src/observe/logger.js';
import { createGateway, type Gateway } from '../../src/server/http.js';
import { type GatewaySpec, gatewayYaml, STRICT_KEY, TEST_KEY } from './gateway-config.js';

export function loadTestConfig(yaml: string): GatewayConfig {
  const r = loadConfigText(yaml, 'test.yaml', {});
  if (!r.config)
    throw new Error(
      `test config invalid:\n${r.issues.map((i) => `${i.line}:${i.col} ${i.path}: ${i.message}`).join('\n')}`,
    );
  return r.config;
}

/** The config a spec describes (gateway-config.ts). */
export function configOf(spec: GatewaySpec): GatewayConfig {
  return loadTestConfig(gatewayYaml(spec));
}

export interface RunningGateway {
  url: string;
  gateway: Gateway;
  logs: string[];
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logs: string[] = [];
  const gateway = createGateway(config, { logger: createLogger({ level: 'debug', write: (l) => logs.push(l) }) });
  const url = await gateway.listen(0, '127.0.0.1');
  return {
    url,
    gateway,
    // Lines of requests that ended in this turn are made at its end (src/observe/end-of-turn.ts),
    // which can come after the client has its response: reading the log makes them first.
    get logs() {
      runQueued();
      return logs;
    },
    close: () => gateway.close(1000),
  };
}

export function authHeaders(key = TEST_KEY): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/** Headers of an Anthropic-format call with the strict gateway's key. */
export function anthropicHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-key': STRICT_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', ...extra };
}

export function openaiHeaders(): Record<string, string> {
  return { authorization: `Bearer ${STRICT_KEY}`, 'content-type': 'application/json' };
}
