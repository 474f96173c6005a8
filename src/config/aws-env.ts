/**
 * A Bedrock provider that signs with SigV4 and configures no `aws` credentials takes them from
 * the environment, once, at load (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN):
 * from then on they are the provider's like configured ones (redacted from errors, never logged).
 * Without them the provider is unavailable, as one whose api_key variable is unset.
 */

import { formatPath, type Locate, type PathSeg } from './issues.js';
import type { ConfigIssue } from './types.js';

type Obj = Record<string, unknown>;

export function takeAwsEnvCredentials(
  data: unknown,
  env: NodeJS.ProcessEnv,
  unavailable: Map<string, string>,
  file: string,
  locate: Locate,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const providers = isObj(data) && isObj(data.providers) ? data.providers : {};
  for (const [pid, p] of Object.entries(providers)) {
    if (
      !isObj(p) ||
      (p.api !== 'bedrock' && p.api !== 'bedrock-anthropic') ||
      p.api_key !== undefined ||
      p.aws !== undefined
    )
      continue;
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (accessKeyId && secretAccessKey) {
      const sessionToken = env.AWS_SESSION_TOKEN;
      p.aws = {
        access_key_id: accessKeyId,
        secret_access_key: secretAccessKey,
        ...(sessionToken ? { session_token: sessionToken } : {}),
      };
      continue;
    }
    const reason = 'no AWS credentials (aws, api_key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)';
    if (!unavailable.has(pid)) unavailable.set(pid, reason);
    const segs: PathSeg[] = ['providers', pid];
    issues.push({
      severity: 'warning',
      file,
      ...locate(segs, 'key'),
      path: formatPath(segs),
      message: `${reason}; provider "${pid}" is unavailable`,
    });
  }
  return issues;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
