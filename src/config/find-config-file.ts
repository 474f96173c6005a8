/** Which config file to load when the CLI is started. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * `--config` flag, else `GATEWAY_CONFIG`, else `./gateway.yaml` if it exists, else
 * `./gateway.example.yaml` (which may not exist either; loadConfig then reports "file not found").
 * Relative paths are resolved against `cwd`; the result is absolute.
 */
export function resolveConfigPath(
  flag?: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  if (flag) return resolve(cwd, flag);
  if (env.GATEWAY_CONFIG) return resolve(cwd, env.GATEWAY_CONFIG);
  const local = resolve(cwd, 'gateway.yaml');
  return existsSync(local) ? local : resolve(cwd, 'gateway.example.yaml');
}
