import type { WireFormat } from '../formats/types.js';
import { openaiChat } from '../formats/openai-chat/index.js';
import { authenticate } from '../pipeline/authenticate.js';
import { authorise } from '../pipeline/authorise.js';
import { compose, type Stage } from '../pipeline/compose.js';
import type { RequestContext } from '../pipeline/context.js';
import { dispatch } from '../pipeline/dispatch.js';
import { listModelsReply } from '../pipeline/list-models-reply.js';
import { observe } from '../pipeline/observe.js';
import { parseBody } from '../pipeline/parse-body.js';
import { render } from '../pipeline/render.js';

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** The wire format of the caller: requests are read and errors rendered in it. */
  format: WireFormat;
  run: (ctx: RequestContext) => Promise<void>;
}

/** The stages every model request goes through, whatever its wire format. */
const MODEL_REQUEST: Stage[] = [observe, render, parseBody, authenticate, authorise, dispatch];

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v1/chat/completions', format: openaiChat, run: compose(MODEL_REQUEST) },
  { method: 'GET', path: '/v1/models', format: openaiChat, run: compose([observe, render, authenticate, listModelsReply]) },
];

/** Format used for errors on paths no route owns. */
export function formatForUnknownPath(_path: string): WireFormat {
  return openaiChat;
}
