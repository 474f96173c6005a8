import { GatewayError } from '../core/errors.js';
import { resolveModel } from '../routing/resolve-model.js';
import { roleMayUse } from '../config/access.js';
import { checkAccountTools } from '../routing/server-tools.js';
import type { Stage } from './compose.js';

/**
 * Model id or alias → ordered candidates; the caller's role must allow the name it used, and the
 * server tools or MCP servers the request asks for (routing/server-tools.ts).
 */
export const authorise: Stage = (ctx, next) => {
  const name = ctx.chat!.model;
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
  checkAccountTools(role, ctx.body);
  ctx.resolution = resolution;
  return next(); // nothing to do on the way out: no async frame of its own
};
