/**
 * The secrets one request must never leak to its caller or to a log: every provider's configured
 * secrets and the access tokens it fetched (providers/provider-secrets.ts), the caller's own
 * provider key (BYOK) and the gateway key it presented (configured gateway keys may be stored as
 * digests, so the presented value is the one that can be echoed back).
 * Everything written to the caller as an error — HTTP error bodies and in-stream errors, in either
 * format, pass-through or translated — goes through `withoutSecrets`.
 */

import type { GatewayConfig } from '../config/types.js';
import { withMessage, type GatewayError } from '../core/errors.js';
import { boundText, redactSecrets } from '../observe/redact.js';
import { configuredSecrets, fetchedTokens } from '../providers/provider-secrets.js';
import { callerProviderKey } from '../routing/byok.js';
import { presentedKey } from '../http/presented-key.js';
import type { RequestContext } from './context.js';

/** Longest error message a caller gets (upstream messages included). */
export const MAX_ERROR_MESSAGE = 2000;

const configured = new WeakMap<GatewayConfig, string[]>();

function providerKeys(config: GatewayConfig): string[] {
  let keys = configured.get(config);
  if (!keys) {
    keys = [...config.providers.values()].flatMap(configuredSecrets);
    configured.set(config, keys);
  }
  return keys;
}

export function requestSecrets(ctx: RequestContext): string[] {
  const out = [...providerKeys(ctx.config)];
  // Tokens change as they are refreshed: read at the time of the error.
  for (const p of ctx.config.providers.values()) out.push(...fetchedTokens(p));
  const own = callerProviderKey(ctx.req.headers);
  if (own) out.push(own);
  const gatewayKey = presentedKey(ctx.req.headers);
  if (gatewayKey) out.push(gatewayKey);
  return out;
}

/** Text safe to show the caller or to log: secrets removed by value and by shape. */
export function redactForRequest(ctx: RequestContext, text: string): string {
  return redactSecrets(text, requestSecrets(ctx));
}

/** The error with every secret removed from its message (and the message bounded). */
export function withoutSecrets(ctx: RequestContext, err: GatewayError): GatewayError {
  const message = boundText(redactForRequest(ctx, err.message), MAX_ERROR_MESSAGE);
  return message === err.message ? err : withMessage(err, message);
}
