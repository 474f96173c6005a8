import { GatewayError } from '../core/errors.js';
import { signV4 } from './sigv4.js';
import type { HttpProviderKind } from './types.js';

const COUNT_TOKENS_PATH = '/count-tokens';

/**
 * AWS Bedrock's runtime, Converse API: the model id (a foundation model, an inference profile or
 * an ARN) is URL-encoded in the path (`/model/{modelId}/converse`, `/converse-stream` for AWS
 * event-stream answers). A Bedrock API key goes as a bearer token (one string, so BYOK works);
 * otherwise the request is SigV4-signed (service `bedrock`) over the exact body sent. Every
 * caller is translated (no caller speaks Converse); count_tokens asks CountTokens
 * (`/model/{modelId}/count-tokens`), signed the same way, for the foundation model: CountTokens
 * takes no cross-region inference profile, so `us.anthropic.…` is counted as `anthropic.…`.
 * The health check is ListAsyncInvokes (`GET /async-invoke`): the runtime's one call that costs
 * nothing; it needs `bedrock:ListAsyncInvokes`, so a role limited to InvokeModel is reported as
 * credentials rejected there while `--probe` succeeds.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export const bedrockProvider: HttpProviderKind = {
  api: 'bedrock',
  speaks: 'bedrock-converse',
  chatPath: '/converse',
  streamPath: '/converse-stream',
  countTokensPath: COUNT_TOKENS_PATH,
  healthPath: '/async-invoke?maxResults=1',
  probeBody: () => ({
    messages: [{ role: 'user', content: [{ text: 'ping' }] }],
    inferenceConfig: { maxTokens: 1 },
  }),
  async authHeaders(apiKey, provider, request) {
    if (apiKey) return { authorization: `Bearer ${apiKey}` };
    const settings = provider.bedrock;
    if (!settings?.credentials || !request)
      throw new GatewayError('upstream_error', `Provider "${provider.id}" has no AWS credentials to sign with.`);
    return signV4(request, { service: 'bedrock', region: settings.region, credentials: settings.credentials });
  },
  pathFor(path, _provider, model) {
    if (!model) return path;
    const id = path === COUNT_TOKENS_PATH ? foundationModelId(model.upstreamName) : model.upstreamName;
    return `/model/${encodeURIComponent(id)}${path}`;
  },
};

/** A cross-region inference profile's geography prefix (`us.`, `eu.`, `apac.`, `global.`…) before `vendor.model`. */
const PROFILE_PREFIX = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\.(?=[a-z0-9-]+\.)/;

/** The foundation model a cross-region inference profile serves; any other id (an ARN too) as it is. */
export function foundationModelId(modelId: string): string {
  return modelId.replace(PROFILE_PREFIX, '');
}
