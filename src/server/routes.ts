import type { IncomingMessage } from 'node:http';
import { anthropicMessages } from '../formats/anthropic-messages/index.js';
import { openaiChat } from '../formats/openai-chat/index.js';
import { openaiResponses } from '../formats/openai-responses/index.js';
import type { WireFormat } from '../formats/types.js';
import { authenticate } from '../pipeline/authenticate.js';
import { authorise } from '../pipeline/authorise.js';
import { compose, type Stage } from '../pipeline/compose.js';
import type { RequestContext } from '../request/context.js';
import { conversation, conversationForCounting } from '../pipeline/conversation.js';
import { countTokensReply } from '../pipeline/count-tokens-reply.js';
import { dispatch } from '../pipeline/dispatch.js';
import { guardInput } from '../pipeline/guard-input.js';
import { guardOutput } from '../pipeline/guard-output.js';
import { countTokensLimits, limits } from '../pipeline/limits.js';
import { listModelsReply } from '../pipeline/list-models-reply.js';
import { observe } from '../pipeline/observe.js';
import { parseBody, parseCountBody } from '../pipeline/parse-body.js';
import { render } from '../pipeline/render.js';
import { retrieveModelReply } from '../pipeline/retrieve-model-reply.js';
import { storedResponsePath, storedResponseReply } from '../pipeline/stored-response-reply.js';
import { dispatchEmbeddings } from '../pipeline/dispatch.js';
import { guardEmbeddingsInput } from '../pipeline/guard-input.js';
import { embeddingsLimits } from '../pipeline/limits.js';
import { parseEmbeddingsBody } from '../pipeline/parse-body.js';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  /** The caller's wire format: requests are read, responses and errors rendered in it. */
  format: WireFormat | ((req: IncomingMessage) => WireFormat);
  run: (ctx: RequestContext) => Promise<void>;
  /** `METHOD path`, as the log and metrics name the endpoint (made once, not per request). */
  label: string;
}

/**
 * The stages every model request goes through, whatever its wire format: one pipeline, no copies.
 * Authentication reads only headers and comes before the body is read (unauthenticated bytes are
 * never buffered).
 */
const MODEL_REQUEST: Stage[] = [
  observe,
  render,
  authenticate,
  parseBody,
  authorise,
  guardInput,
  limits,
  guardOutput,
  dispatch,
];

/** Anthropic clients announce themselves with `anthropic-version`; everyone else gets OpenAI shapes. */
export function callerFormat(req: IncomingMessage): WireFormat {
  return req.headers['anthropic-version'] !== undefined ? anthropicMessages : openaiChat;
}

/**
 * The Responses API: the same stages, with its conversation state (previous_response_id,
 * item_reference, stored responses) expanded after the body is read and kept on the way out.
 */
const RESPONSES_REQUEST: Stage[] = [
  observe,
  render,
  authenticate,
  parseBody,
  conversation,
  authorise,
  guardInput,
  limits,
  guardOutput,
  dispatch,
];

const MODEL_BY_ID = '/v1/models/{id}';
const STORED_RESPONSE = compose([observe, render, authenticate, storedResponseReply]);

const DECLARED: ReadonlyArray<Omit<Route, 'label'>> = [
  { method: 'POST', path: '/v1/chat/completions', format: openaiChat, run: compose(MODEL_REQUEST) },
  { method: 'POST', path: '/v1/messages', format: anthropicMessages, run: compose(MODEL_REQUEST) },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    format: anthropicMessages,
    run: compose([
      observe,
      render,
      authenticate,
      parseCountBody,
      authorise,
      guardInput,
      countTokensLimits,
      countTokensReply,
    ]),
  },
  { method: 'POST', path: '/v1/responses', format: openaiResponses, run: compose(RESPONSES_REQUEST) },
  {
    method: 'POST',
    path: '/v1/responses/input_tokens',
    format: openaiResponses,
    run: compose([
      observe,
      render,
      authenticate,
      parseCountBody,
      conversationForCounting,
      authorise,
      guardInput,
      countTokensLimits,
      countTokensReply,
    ]),
  },
  { method: 'GET', path: '/v1/responses/{id}', format: openaiResponses, run: STORED_RESPONSE },
  { method: 'DELETE', path: '/v1/responses/{id}', format: openaiResponses, run: STORED_RESPONSE },
  { method: 'GET', path: '/v1/responses/{id}/input_items', format: openaiResponses, run: STORED_RESPONSE },
  {
    method: 'GET',
    path: '/v1/models',
    format: callerFormat,
    run: compose([observe, render, authenticate, listModelsReply]),
  },
  {
    method: 'GET',
    path: MODEL_BY_ID,
    format: callerFormat,
    run: compose([observe, render, authenticate, retrieveModelReply]),
  },
  // The same guarantees for an embeddings request: its own reading, guardrails, limits and attempt.
  {
    method: 'POST',
    path: '/v1/embeddings',
    format: openaiChat,
    run: compose([
      observe,
      render,
      authenticate,
      parseEmbeddingsBody,
      authorise,
      guardEmbeddingsInput,
      embeddingsLimits,
      dispatchEmbeddings,
    ]),
  },
];

export const ROUTES: readonly Route[] = DECLARED.map((r) => ({ ...r, label: `${r.method} ${r.path}` }));

/**
 * The route path a request path is served by: itself, or the one templated route, whose id may
 * hold `/` (`/v1/models/team/fast`), so it takes the whole rest of the path.
 */
export function routePath(path: string): string {
  if (path.startsWith('/v1/models/') && path.length > '/v1/models/'.length) return MODEL_BY_ID;
  if (path === '/v1/responses/input_tokens') return path;
  return storedResponsePath(path) ?? path;
}

/** Format used for errors on paths no route owns. */
export function formatForUnknownPath(path: string, req: IncomingMessage): WireFormat {
  if (path.startsWith('/v1/responses')) return openaiResponses;
  return path.startsWith('/v1/messages') ? anthropicMessages : callerFormat(req);
}
