import type { ModelKind } from '../config/types.js';
import { GatewayError } from '../core/errors.js';
import { type Resolution, resolveModel } from '../routing/resolve-model.js';
import { roleMayUse } from '../config/access.js';
import { checkAccountTools } from '../routing/server-tools.js';
import { requestedModel } from '../request/context.js';
import type { Stage } from './compose.js';

/**
 * Model id or alias → ordered candidates; the caller's role must allow the name it used, the
 * model must be of the endpoint's kind (chat, or embedding on /v1/embeddings), and the server
 * tools or MCP servers the request asks for must be allowed (routing/server-tools.ts).
 */
export const authorise: Stage = (ctx, next) => {
  const name = requestedModel(ctx)!;
  const resolution = resolveModel(ctx.config, name);
  if (!resolution) {
    throw new GatewayError(
      'model_not_found',
      `The model "${name}" does not exist. List the available ones with GET /v1/models.`,
      { param: 'model' },
    );
  }
  const role = ctx.config.roles.get(ctx.principal!.role);
  if (!role || !roleMayUse(ctx.config, role.id, resolution.id)) {
    throw new GatewayError(
      'model_not_allowed',
      `Your key's role "${ctx.principal!.role}" may not use the model "${name}".`,
      { param: 'model' },
    );
  }
  refuseOtherKind(resolution, ctx.embeddings ? 'embedding' : 'chat');
  checkAccountTools(role, ctx.body);
  ctx.resolution = resolution;
  return next(); // nothing to do on the way out: no async frame of its own
};

/** check-config keeps an alias to one kind, so a candidate of another kind means the wrong endpoint. */
function refuseOtherKind(resolution: Resolution, endpointKind: ModelKind): void {
  const other = resolution.candidates.find((c) => c.model.kind !== endpointKind);
  if (!other) return;
  const what = resolution.kind === 'alias' ? `The alias "${resolution.id}" routes to` : `"${resolution.id}" is`;
  const message =
    other.model.kind === 'embedding'
      ? `${what} an embedding model: send it to POST /v1/embeddings.`
      : `${what} a chat model, not an embedding model: send it to POST /v1/chat/completions or /v1/messages.`;
  throw new GatewayError('invalid_request', message, { param: 'model' });
}
