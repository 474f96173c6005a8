import type { ChatRequest, UpstreamFormatId, WireFormatId } from '../core/canonical.js';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../core/errors.js';
import { spliceTopLevel } from '../core/json-splice.js';
import type { UpstreamFormat } from '../formats/types.js';
import { ENVELOPES, UPSTREAM_FORMATS } from '../formats/registry.js';
import { HTTP_PROVIDERS } from '../providers/registry.js';
import { countTokensLocal, refuseUncountable } from '../routing/count-tokens.js';
import { sendUpstream, upstreamErrorOfText } from '../attempt/upstream-request.js';
import { CredentialPlan } from '../routing/byok.js';
import type { Candidate } from '../routing/resolve-model.js';
import { routedStage, type Stage } from './compose.js';
import type { RoutedContext } from '../request/context.js';

/** Fields each counting endpoint accepts (generation settings are not among them). */
const COUNT_FIELDS: Partial<Record<UpstreamFormatId, readonly string[]>> = {
  'anthropic-messages': ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking'],
  'openai-responses': [
    'model',
    'input',
    'instructions',
    'tools',
    'tool_choice',
    'parallel_tool_calls',
    'reasoning',
    'text',
  ],
};

/** The count in the caller's format: Anthropic `{input_tokens}`, Responses adds its `object`. */
function countBody(caller: WireFormatId, inputTokens: number): object {
  return caller === 'openai-responses'
    ? { object: 'response.input_tokens', input_tokens: inputTokens }
    : { input_tokens: inputTokens };
}

/**
 * POST /v1/messages/count_tokens and POST /v1/responses/input_tokens → `{ input_tokens }`. A
 * model behind a provider with its own counting endpoint (Anthropic, OpenAI Responses, Gemini,
 * Bedrock's CountTokens for Converse and InvokeModel) gets the provider's exact count; any other
 * model, or one the provider says it cannot count (`countTokens.unsupported` of its format or
 * envelope: then `x-gateway-token-count-fallback` says so), is counted
 * locally with its family's tokenizer (see README, "Token counting", for the accuracy). A caller of
 * the provider's own format has its body forwarded as sent (pass-through), like /v1/messages.
 */
export const countTokensReply: Stage = routedStage(async (ctx) => {
  const resolution = ctx.resolution;
  const chat = ctx.chat;
  // Counting needs no fallback: the first candidate with a usable key is asked.
  const usable = CredentialPlan.forRequest(ctx.req.headers, resolution.candidates, 'same_provider').firstUsable(
    resolution.candidates,
  );
  if (!usable) throw new GatewayError('no_available_provider', `No provider is available for "${resolution.id}".`);
  const { candidate: c, credential: cred } = usable;
  ctx.served = c;
  ctx.responseHeaders['x-gateway-model'] = c.model.id;
  const kind = c.provider.api === 'mock' ? undefined : HTTP_PROVIDERS[c.provider.api];
  const upstreamFormat = kind && UPSTREAM_FORMATS[kind.speaks];
  if (!kind?.countTokensPath || !upstreamFormat) return replyLocalCount(ctx, c, chat);
  if (upstreamUncountable.get(c.provider)?.has(c.model.upstreamName)) return replyLocalCount(ctx, c, chat, true);
  const envelope = kind.envelope && ENVELOPES[kind.envelope];
  // The counter's request and answer: the envelope's when the kind wraps the format, else the format's own.
  const counter = envelope ? envelope.countTokens : upstreamFormat.countTokens;
  const formatBody =
    upstreamFormat.id === ctx.format.id
      ? spliceTopLevel(ctx.rawBody, { model: JSON.stringify(c.model.upstreamName) }, {}, ctx.rawMembers)
      : encodedBody(chat, upstreamFormat, c);
  // A count has no answer headers to list drops in: what the platform refuses is only left out.
  const edit = { provider: c.provider, dropped: [] };
  const edited = kind.editCountBody ? kind.editCountBody(formatBody, ctx.req.headers, ctx.format.id, edit) : formatBody;
  // A kind whose API wraps the format (Bedrock's CountTokens) wraps the body it would count.
  const body = envelope ? envelope.countTokens.body(edited) : edited;
  ctx.attempts += 1;
  const up = await sendUpstream(ctx, c, kind, {
    path: kind.countTokensPath,
    body,
    accept: 'application/json',
    apiKey: cred.apiKey,
  });
  if (up.status >= 400) {
    const text = await up.body.text().catch(() => '');
    if (counter?.unsupported?.(up.status, parseOrUndefined(text))) {
      rememberUncountable(c);
      return replyLocalCount(ctx, c, chat, true);
    }
    throw upstreamErrorOfText(up, text, c, upstreamFormat, cred.apiKey);
  }
  const parsed = parseOrUndefined(await up.body.text().catch(() => ''));
  const count = counter
    ? counter.inputTokens(parsed)
    : (parsed as { input_tokens?: unknown } | undefined)?.input_tokens;
  if (typeof count !== 'number')
    throw new GatewayError('upstream_error', `Provider "${c.provider.id}" sent an invalid token count.`);
  ctx.responseHeaders['x-gateway-token-count'] = 'upstream';
  ctx.reply = { kind: 'json', status: 200, body: countBody(ctx.format.id, count) };
});

/**
 * Models a provider said it cannot count (Bedrock's CountTokens does not take every model), per
 * provider config: they are counted locally from then on, until a reload brings a new config.
 */
const upstreamUncountable = new WeakMap<ProviderConfig, Set<string>>();

function rememberUncountable(c: Candidate): void {
  const models = upstreamUncountable.get(c.provider) ?? new Set<string>();
  models.add(c.model.upstreamName);
  upstreamUncountable.set(c.provider, models);
}

/**
 * The model family's local count. `fallback`: the provider cannot count this model, said in
 * `x-gateway-token-count-fallback` next to the local method.
 */
function replyLocalCount(ctx: RoutedContext, c: Candidate, chat: ChatRequest, fallback = false): void {
  const count = countTokensLocal(ctx.config, c.model.id, chat);
  ctx.responseHeaders['x-gateway-token-count'] = count.exact ? 'local-exact' : 'local-approximate';
  if (fallback) ctx.responseHeaders['x-gateway-token-count-fallback'] = 'upstream-unsupported';
  ctx.reply = { kind: 'json', status: 200, body: countBody(ctx.format.id, count.inputTokens) };
}

/**
 * Same format: the caller's count_tokens body as sent (only `model` rewritten); the provider judges
 * what it does not know.
 */
/** Another format: re-encoded from the canonical request, only the counting fields going up. */
function encodedBody(chat: ChatRequest, upstreamFormat: UpstreamFormat, c: Candidate): Buffer {
  refuseUncountable(chat);
  const encoded = upstreamFormat.encodeRequest(
    { ...chat, stream: false },
    { model: c.model.upstreamName, maxOutputTokens: c.model.maxOutputTokens },
  );
  if (upstreamFormat.countTokens)
    return Buffer.from(JSON.stringify(upstreamFormat.countTokens.body(encoded, c.model.upstreamName)));
  const body: Record<string, unknown> = {};
  for (const f of COUNT_FIELDS[upstreamFormat.id] ?? []) if (encoded[f] !== undefined) body[f] = encoded[f];
  return Buffer.from(JSON.stringify(body));
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
