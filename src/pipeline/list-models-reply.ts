import { listModels } from '../routing/list-models.js';
import type { Stage } from './compose.js';

/** GET /v1/models: the OpenAI list shape, with each entry's context window, for the caller's role. */
export const listModelsReply: Stage = async (ctx) => {
  const created = Math.floor(ctx.runtime.startedAtEpochMs / 1000);
  const data = listModels(ctx.config, ctx.principal!.role).map((m) => ({
    id: m.id,
    object: 'model',
    created,
    owned_by: m.owner,
    context_window: m.contextWindow,
    ...(m.maxOutputTokens !== undefined ? { max_output_tokens: m.maxOutputTokens } : {}),
    ...(m.kind === 'alias' ? { targets: m.targets } : {}),
  }));
  ctx.reply = { kind: 'json', status: 200, body: { object: 'list', data } };
};
