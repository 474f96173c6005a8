/**
 * The secrets a provider holds, none of which may reach a caller or a log: what its config says (a key,
 * AWS credentials, an Entra ID client secret) and the access tokens it fetched (Entra ID, Google Cloud),
 * which an upstream may echo in an error as well as a configured key.
 */

import type { ProviderConfig } from '../config/types.js';
import { recentEntraTokens } from './entra-token.js';
import { recentVertexTokens } from './vertex-token.js';

/** The provider's configured secrets. */
export function configuredSecrets(p: ProviderConfig): string[] {
  const out: string[] = [];
  if (p.apiKey) out.push(p.apiKey);
  const aws = p.bedrock?.credentials;
  if (aws) out.push(aws.secretAccessKey, ...(aws.sessionToken ? [aws.sessionToken] : []));
  const entra = p.azure?.entra;
  if (entra) out.push(entra.clientSecret);
  return out;
}

/** The access tokens the provider fetched lately (none for a kind that sends a key). */
export function fetchedTokens(p: ProviderConfig): readonly string[] {
  if (p.azure?.entra) return recentEntraTokens(p.azure.entra);
  if (p.vertex) return recentVertexTokens(p.vertex);
  return [];
}
