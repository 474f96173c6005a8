import type { ProviderConfig } from '../config/types.js';
import { entraToken, forgetEntraToken } from './entra-token.js';
import type { HttpProviderKind } from './types.js';

/**
 * Azure OpenAI (`https://{resource}.openai.azure.com`): the OpenAI chat format under Azure's
 * paths. The deployment style names the deployment (the model's `upstream_name`) in the URL with
 * an `api-version`; the v1 style is OpenAI's paths under `/openai/v1` with the deployment in the
 * body's `model`. Auth: the `api-key` header, or a Microsoft Entra ID bearer token.
 */
export const azureOpenaiProvider: HttpProviderKind = {
  api: 'azure-openai',
  speaks: 'openai-chat',
  chatPath: '/chat/completions',
  embeddingsPath: '/embeddings',
  // The models list is the resource's (`/openai/models`); a deployment's endpoints are under its name.
  healthPath: '/models',
  probeBody: (model) => ({ model, messages: [{ role: 'user', content: 'ping' }], max_completion_tokens: 1 }),
  pathFor(path, provider, model) {
    const azure = provider.azure;
    if (azure?.style === 'v1') return `/openai/v1${path}`;
    const version = `api-version=${encodeURIComponent(azure?.apiVersion ?? '')}`;
    if (!model) return `/openai${path}?${version}`;
    return `/openai/deployments/${encodeURIComponent(model.upstreamName)}${path}?${version}`;
  },
  authHeaders: azureAuthHeaders,
  credentialRejected: forgetAzureToken,
  errorMessage: contentFilterMessage,
};

/** Azure answered 401: an Entra ID token it refused is not sent again. */
export function forgetAzureToken(provider: ProviderConfig): void {
  if (provider.azure?.entra) forgetEntraToken(provider.azure.entra);
}

/** The `api-key` header, or an Entra ID bearer token when the provider has `entra`. */
export function azureAuthHeaders(
  apiKey: string | undefined,
  provider: ProviderConfig,
): Record<string, string> | Promise<Record<string, string>> {
  const entra = provider.azure?.entra;
  if (entra) return entraToken(provider, entra).then(bearer);
  return apiKey ? { 'api-key': apiKey } : {};
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/**
 * Azure's content filter refusing a prompt: a 400 with `error.code: "content_filter"` and, in
 * `innererror.content_filter_result`, a verdict per category. The message names the categories
 * that filtered it.
 */
export function contentFilterMessage(body: unknown): string | undefined {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (error?.code !== 'content_filter') return undefined;
  const inner = error.innererror as { content_filter_result?: Record<string, unknown> } | undefined;
  const filtered = Object.entries(inner?.content_filter_result ?? {})
    .filter(([, v]) => (v as { filtered?: unknown } | null)?.filtered === true)
    .map(([category, v]) => {
      const severity = (v as { severity?: unknown }).severity;
      return typeof severity === 'string' ? `${category} (${severity})` : category;
    })
    .slice(0, 16);
  const which = filtered.length > 0 ? `: ${filtered.join(', ')}` : '';
  return `Azure OpenAI's content filter refused the prompt${which}`;
}
