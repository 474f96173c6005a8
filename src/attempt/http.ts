/**
 * One attempt against an HTTP provider: the request body from the translator for this pair of
 * formats (formats/translator.ts: pass-through when the caller and the upstream speak the same
 * one), sent; an error answer read into the catalogue error; the answer handed back to the
 * translator, which turns it into the reply.
 */

import { GatewayError } from '../core/errors.js';
import { ENVELOPES, UPSTREAM_FORMATS } from '../formats/registry.js';
import { translatorFor } from '../formats/translator.js';
import type { Reply } from '../core/reply.js';
import type { HttpProviderKind } from '../providers/types.js';
import { callerModel, type RoutedContext } from '../request/context.js';
import { withoutSecrets } from '../request/secrets.js';
import type { Candidate } from '../routing/resolve-model.js';
import { upstreamFailure } from '../upstream/client.js';
import {
  noteUpstreamRequestId,
  readAnswer,
  responseHeader,
  sendUpstream,
  upstreamErrorOf,
} from './upstream-request.js';

/** `apiKey`: the provider key for this attempt (the configured one, or the caller's own). */
export async function attemptHttp(
  ctx: RoutedContext,
  c: Candidate,
  kind: HttpProviderKind,
  apiKey: string | undefined,
): Promise<Reply> {
  const upstreamFormat = UPSTREAM_FORMATS[kind.speaks];
  if (!upstreamFormat) throw new GatewayError('internal_error', `No wire format "${kind.speaks}" is registered.`);
  const chat = ctx.chat;
  const translated = upstreamFormat.id !== ctx.format.id;
  const translator = translatorFor(ctx.format, upstreamFormat, ctx.outputGuarded === true);
  const target = {
    model: c.model.upstreamName,
    maxOutputTokens: c.model.maxOutputTokens,
    reasoning: c.model.reasoning,
  };
  const edits = { dropped: [] as string[], rewritten: [] as string[] };
  const formatted = translator.requestBody(
    { raw: ctx.rawBody, members: ctx.rawMembers, parsed: ctx.body, chat },
    target,
    edits,
  );
  // The kind's edits may leave out what its platform refuses (a beta, a field): listed as a translation's drops.
  let body = formatted;
  if (kind.editBody) {
    body = kind.editBody(formatted, ctx.req.headers, ctx.format.id, { provider: c.provider, dropped: edits.dropped });
  }
  noteDropped(ctx, translated ? [...edits.dropped, ...droppedBetas(ctx)] : edits.dropped);
  noteRewritten(ctx, edits.rewritten);
  const envelope = kind.envelope && ENVELOPES[kind.envelope];
  const streamType = envelope?.streamMediaType ?? upstreamFormat.streamFraming?.mediaType ?? 'text/event-stream';
  const accept = chat.stream ? streamType : 'application/json';
  const up = await sendUpstream(ctx, c, kind, {
    path: chat.stream ? (kind.streamPath ?? kind.chatPath) : kind.chatPath,
    body,
    accept,
    apiKey,
  });
  noteUpstreamRequestId(ctx, up);
  if (up.status >= 400) throw await upstreamErrorOf(up, c, upstreamFormat, apiKey);

  const answer = {
    chat,
    modelName: callerModel(ctx),
    redact: (err: GatewayError) => withoutSecrets(ctx, err),
    sink: ctx,
    providerId: c.provider.id,
    transportError: (err: unknown) => upstreamFailure(err, c.provider, c.model.timeouts),
  };
  const isStream = (responseHeader(up, 'content-type') ?? '').includes(streamType);
  if (chat.stream && isStream) return translator.stream(envelope ? envelope.unwrapStream(up.body) : up.body, answer);
  if (chat.stream) {
    await up.body.dump().catch(() => undefined);
    throw new GatewayError(
      'upstream_error',
      `Provider "${c.provider.id}" answered a streaming request without an event stream.`,
    );
  }
  return translator.response(await readAnswer(up, c), up.status, answer);
}

/**
 * What a translated request, or a kind's edit, left out (README, "Translation between the two
 * formats"): in the `x-gateway-dropped-fields` header and the log line. Set per attempt (a fallback
 * to a model of the caller's own format drops nothing).
 */
function noteDropped(ctx: RoutedContext, dropped: readonly string[]): void {
  if (dropped.length === 0 && ctx.droppedFields === undefined) return; // the usual case: nothing to note
  const names = [...new Set(dropped)];
  ctx.droppedFields = names.length > 0 ? names : undefined;
  if (names.length > 0) ctx.responseHeaders['x-gateway-dropped-fields'] = names.join(', ');
  else delete ctx.responseHeaders['x-gateway-dropped-fields']; // a fallback that drops nothing: rare
}

/**
 * What a same-format request had replaced by what the model takes (README, "Pass-through": Claude's
 * thinking mode): in the `x-gateway-rewritten-fields` header and the log line. Set per attempt, as drops are.
 */
function noteRewritten(ctx: RoutedContext, rewritten: string[]): void {
  if (rewritten.length === 0 && ctx.rewrittenFields === undefined) return; // the usual case: nothing to note
  ctx.rewrittenFields = rewritten.length > 0 ? rewritten : undefined;
  if (rewritten.length > 0) ctx.responseHeaders['x-gateway-rewritten-fields'] = rewritten.join(', ');
  else delete ctx.responseHeaders['x-gateway-rewritten-fields']; // a fallback that rewrites nothing: rare
}

/**
 * `anthropic-beta` values only opt into features; what a feature adds to the body (a field, tool
 * or block) is classified itself. Translated, no beta header goes up: each value is listed.
 */
function droppedBetas(ctx: RoutedContext): string[] {
  const v = ctx.req.headers['anthropic-beta'];
  if (ctx.format.id !== 'anthropic-messages' || v === undefined) return [];
  // The caller's text goes back in a header: bounded in number and length.
  const values = (Array.isArray(v) ? v.join(',') : v)
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b.length > 0 && b.length <= 100);
  return values.slice(0, 32).map((b) => `anthropic-beta:${b}`);
}
