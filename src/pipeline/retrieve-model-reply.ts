import { GatewayError } from '../core/errors.js';
import { listModels } from '../routing/list-models.js';
import { resolveModel } from '../routing/resolve-model.js';
import type { Stage } from './compose.js';
import { anthropicModel, openaiModel } from './list-models-reply.js';

const PREFIX = '/v1/models/';

/**
 * The model id of GET /v1/models/{id}. Ids contain `/` (`team/fast`): taken raw or
 * percent-encoded, as both official SDKs send it (`team%2Ffast`).
 */
export function retrievedId(url: string | undefined): string {
  const raw = (url ?? '/').split('?', 1)[0].slice(PREFIX.length);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // malformed escapes: no model has that name, so it ends as a 404
  }
}

/**
 * GET /v1/models/{id}: the entry GET /v1/models lists for that id, in the same shape (OpenAI, or
 * Anthropic with `anthropic-version`). Same rule as the completion endpoints: a known model
 * outside the caller's role is 403, an unknown one 404.
 */
export const retrieveModelReply: Stage = async (ctx) => {
  const id = retrievedId(ctx.req.url);
  const role = ctx.principal!.role;
  const entry = listModels(ctx.config, role).find((e) => e.id === id);
  if (!entry) {
    if (resolveModel(ctx.config, id)) {
      throw new GatewayError('model_not_allowed', `Your key's role "${role}" may not use the model "${id}".`, {
        param: 'model',
      });
    }
    throw new GatewayError(
      'model_not_found',
      `The model "${id}" does not exist. List the available ones with GET /v1/models.`,
      { param: 'model' },
    );
  }
  const body = ctx.format.id === 'anthropic-messages' ? anthropicModel(ctx, entry) : openaiModel(ctx, entry);
  ctx.reply = { kind: 'json', status: 200, body };
};
