/**
 * Bring your own key. The caller may send its own provider key in `x-provider-api-key`; one
 * header that names no provider, applied to the provider that serves the request. Per provider
 * `byok: never | optional | required`.
 *
 * Which providers a caller's key "belongs to": the provider of the first attempt made with it,
 * and every provider with the same `api` and `base_url` (the same account, configured twice).
 * Later attempts (retries, other targets, fallbacks) with the caller's key stay on those; a
 * candidate elsewhere is skipped, or, when the alias says `byok_fallback: configured_keys`,
 * served with that provider's configured key. The caller's key never goes to another provider.
 */

import type { AliasConfig, ProviderConfig } from '../config/types.js';
import { GatewayError } from '../core/errors.js';
import type { Candidate } from './resolve-model.js';

export const PROVIDER_KEY_HEADER = 'x-provider-api-key';

/** The caller's provider key, if it sent one (never logged, never echoed). */
export function callerProviderKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const v = headers[PROVIDER_KEY_HEADER];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
}

export interface Credential {
  /** The key to send; undefined for the mock (or a provider configured without one). */
  apiKey: string | undefined;
  byok: boolean;
}

function account(p: ProviderConfig): string {
  return `${p.api} ${p.baseUrl ?? p.id}`;
}

/** Decides, attempt by attempt, which key a candidate is called with, or that it is skipped. */
export class CredentialPlan {
  private lockedAccount: string | undefined;

  constructor(
    private readonly callerKey: string | undefined,
    private readonly byokFallback: AliasConfig['byokFallback'],
  ) {}

  /**
   * The plan for one request: the caller's `x-provider-api-key` (if any), checked up front
   * against the candidates (`check`). Chat requests and count_tokens both start here.
   */
  static forRequest(
    headers: Record<string, string | string[] | undefined>,
    candidates: readonly Candidate[],
    byokFallback: AliasConfig['byokFallback'],
  ): CredentialPlan {
    const callerKey = callerProviderKey(headers);
    CredentialPlan.check(candidates, callerKey);
    return new CredentialPlan(callerKey, byokFallback);
  }

  /** The first candidate that has a credential now (a request served without a routing loop). */
  firstUsable(candidates: readonly Candidate[]): { candidate: Candidate; credential: Credential } | undefined {
    for (const candidate of candidates) {
      const credential = this.credentialFor(candidate);
      if (!('skip' in credential)) return { candidate, credential };
    }
    return undefined;
  }

  /**
   * Checks up front that some candidate can take the request as sent: with a caller key, one
   * that accepts caller keys (else 400: a key is never silently ignored); without one, one that
   * does not require it (else 401).
   */
  static check(candidates: readonly Candidate[], callerKey: string | undefined): void {
    const providers = [...new Set(candidates.map((c) => c.provider))];
    const names = (ps: ProviderConfig[]) => ps.map((p) => `"${p.id}"`).join(', ');
    if (callerKey !== undefined) {
      if (!providers.some((p) => p.byok !== 'never')) {
        throw new GatewayError(
          'provider_key_not_allowed',
          `Provider ${names(providers)} does not accept a caller's own key: remove the ${PROVIDER_KEY_HEADER} header.`,
        );
      }
    } else if (providers.every((p) => p.byok === 'required')) {
      throw new GatewayError(
        'provider_key_required',
        `Provider ${names(providers)} requires your own provider key in the ${PROVIDER_KEY_HEADER} header.`,
      );
    }
  }

  /**
   * The credential for this candidate now, or the reason to skip it. Pure: the caller's key is
   * tied to an account only by `used()`, once an attempt is really made with it.
   */
  credentialFor(c: Candidate): Credential | { skip: string } {
    const p = c.provider;
    if (this.callerKey === undefined) {
      if (p.byok === 'required') return { skip: `provider "${p.id}" requires the caller's own key` };
      return p.available
        ? { apiKey: p.apiKey, byok: false }
        : { skip: `provider "${p.id}": ${p.unavailableReason ?? 'unavailable'}` };
    }
    const ownAccount = this.lockedAccount === undefined || this.lockedAccount === account(p);
    if (p.byok !== 'never' && ownAccount) return { apiKey: this.callerKey, byok: true };
    // Other providers only after the caller's key has been used, so it is never ignored outright.
    if (
      this.byokFallback === 'configured_keys' &&
      this.lockedAccount !== undefined &&
      p.byok !== 'required' &&
      p.available
    ) {
      return { apiKey: p.apiKey, byok: false };
    }
    return { skip: `provider "${p.id}" is not where the caller's key belongs` };
  }

  /** An attempt is being made with this credential: the caller's key now belongs to that account. */
  used(c: Candidate, cred: Credential): void {
    if (cred.byok) this.lockedAccount ??= account(c.provider);
  }
}
