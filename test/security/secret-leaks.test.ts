/**
 * Issue 10 §3: secrets are removed by value everywhere. Before the fix, HTTP error bodies were
 * redacted by value but in-stream errors were not: a same-format stream relayed the provider's
 * error event verbatim and a translated one redacted by pattern only, so a configured key such as
 * `team-anthropic-key-01` echoed mid-stream reached the caller.
 *
 * Issue 15: the same on each provider kind (kind-rigs.ts), whose upstream echoes the kind's credentials
 * too: the Azure api-key, the Entra ID and Google Cloud tokens the gateway fetched, the AWS session tokens
 * (Bedrock Converse and InvokeModel sign with SigV4; their secret keys are held, never sent).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockError } from '../helpers/bedrock-wire.js';
import type { Reply } from '../helpers/fake-upstream.js';
import { geminiStreamError } from '../helpers/gemini-wire.js';
import { responsesOrderViolations, sseMessages } from '../helpers/responses-order.js';
import {
  ALL_PAIRS,
  ANT_KEY,
  anthropicStream,
  bedrockException,
  bedrockStream,
  bodyFor,
  formatOfPath,
  geminiStream,
  GW_KEY,
  KIND_PAIRS,
  OAI_KEY,
  openaiStream,
  post,
  RESP_KEY,
  responsesStream,
  startRig,
  type StartedRig,
  userTextOf,
} from './harness.js';

/** Keys of several shapes: the configured ones (not credential-shaped), the caller's own, the gateway key. */
const BYOK_KEY = 'my-own-provider-credential-77';
const SHAPED = 'AKIAIOSFODNN7EXAMPLE';
const KEYS = [OAI_KEY, ANT_KEY, RESP_KEY, BYOK_KEY, GW_KEY, SHAPED];
const PAIRS = [...ALL_PAIRS, ...KIND_PAIRS];

let rig: StartedRig;
/** Every secret no caller or log may see: the keys above and the kinds' credentials. */
const allSecrets = () => [...KEYS, ...rig.kindSecrets().sent, ...rig.kindSecrets().held];

/** A Responses `error` event (the documented flat members) numbered `sequence`. */
function responsesError(message: string, sequence: number): string {
  const data = { type: 'error', sequence_number: sequence, code: 'server_error', message, param: null };
  return `event: error\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The upstream echoes the key it was sent, every configured key, the kinds' credentials sent so far (as an API
 * behind a front would echo what it got), the gateway key and an AWS-shaped one.
 */
function echoing(path: string, when: string, sent: string): Reply {
  const keys = [sent, OAI_KEY, ANT_KEY, RESP_KEY, ...rig.kindSecrets().sent, GW_KEY, SHAPED];
  const ECHO = `upstream saw keys ${keys.join(' and ')} in this request`;
  const format = formatOfPath(path);
  if (format === 'bedrock') {
    // AWS's error shape: `{message}`, the exception named in x-amzn-errortype; in a stream, an exception frame.
    if (when === 'before') return { kind: 'json', status: 400, ...bedrockError(400, { message: ECHO }, {}) };
    const head = when === 'first-event' ? [] : bedrockStream([' hi']).slice(0, 2);
    return { kind: 'sse', events: [...head, bedrockException(ECHO, 'modelStreamErrorException')] };
  }
  if (format === 'gemini') {
    if (when === 'before')
      return { kind: 'json', status: 400, body: { error: { code: 400, message: ECHO, status: 'INVALID_ARGUMENT' } } };
    const head = when === 'first-event' ? [] : geminiStream([' hi']).slice(0, 1);
    return { kind: 'sse', events: [...head, geminiStreamError(ECHO)] };
  }
  // Responses errors before the stream have the OpenAI body; in a stream they are `error` events.
  const openai = format !== 'anthropic';
  if (format === 'responses' && when !== 'before') {
    const head = when === 'first-event' ? [] : responsesStream([' hi']).slice(0, 3);
    return { kind: 'sse', events: [...head, responsesError(ECHO, head.length)] };
  }
  if (when === 'before') {
    return openai
      ? { kind: 'json', status: 400, body: { error: { message: ECHO, type: 'invalid_request_error', code: null } } }
      : { kind: 'json', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: ECHO } } };
  }
  if (when === 'first-event') {
    return openai
      ? { kind: 'sse', events: [`data: ${JSON.stringify({ error: { message: ECHO, type: 'server_error' } })}\n\n`] }
      : {
          kind: 'sse',
          events: [
            `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: ECHO } })}\n\n`,
          ],
        };
  }
  const head = (openai ? openaiStream([' hi']) : anthropicStream([' hi'])).slice(0, 3);
  return openai
    ? {
        kind: 'sse',
        events: [...head, `data: ${JSON.stringify({ error: { message: ECHO, type: 'server_error' } })}\n\n`],
      }
    : {
        kind: 'sse',
        events: [
          ...head,
          `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: ECHO } })}\n\n`,
        ],
      };
}

function expectClean(text: string): void {
  const all = allSecrets();
  for (const k of all) expect(text).not.toContain(k);
  // Not even a piece of one.
  for (const k of all) expect(text).not.toContain(k.slice(0, 12));
}

describe('secrets never reach a caller or a log', () => {
  beforeAll(async () => {
    rig = await startRig(
      (req) => {
        const h = req.headers;
        // SigV4's authorization is a signature: the session token is the credential AWS got.
        const key = h['x-api-key'] ?? h['x-goog-api-key'] ?? h['x-amz-security-token'] ?? h.authorization ?? '';
        const sent = String(key).replace(/^Bearer /, '');
        return echoing(req.path, /when:([a-z-]+)/.exec(userTextOf(req))?.[1] ?? 'during', sent);
      },
      { failures: 1000, kinds: true },
    );
  });
  afterAll(() => rig.close());

  const LABEL: Record<string, string> = {
    before: 'in an HTTP error before the stream',
    'first-event': "as the stream's first event",
    during: 'during the stream',
  };
  for (const when of ['before', 'first-event', 'during']) {
    for (const byok of [false, true]) {
      // A kind's front takes only its own credential (a caller's key is a 401 there): BYOK on the direct pairs.
      const pairs = byok ? ALL_PAIRS : PAIRS;
      it.each(pairs)(
        `%s caller → %s provider: keys echoed ${LABEL[when]}${byok ? ' (BYOK)' : ''}`,
        async (ep, provider) => {
          const headers: Record<string, string> = byok ? { 'x-provider-api-key': BYOK_KEY } : {};
          const res = await post(
            rig.gw.url,
            ep,
            bodyFor(ep, provider, { stream: true, text: `when:${when}` }),
            headers,
          );
          const text = await res.text();
          expect(text).toContain('[REDACTED]');
          expectClean(text);
          expectClean(JSON.stringify([...res.headers]));
          // The error that replaced the key-bearing event keeps a Responses stream in order.
          if (ep === 'responses' && res.headers.get('content-type')?.includes('text/event-stream'))
            expect(responsesOrderViolations(sseMessages(text))).toEqual([]);
        },
      );
      it.each(pairs)(
        `%s caller → %s provider: keys echoed in a non-stream error${byok ? ' (BYOK)' : ''}`,
        async (ep, provider) => {
          const headers: Record<string, string> = byok ? { 'x-provider-api-key': BYOK_KEY } : {};
          const res = await post(rig.gw.url, ep, bodyFor(ep, provider, { text: 'when:before' }), headers);
          expect(res.status).toBe(400);
          const text = await res.text();
          expect(text).toContain('[REDACTED]');
          expectClean(text);
        },
      );
    }
  }

  it('no log line holds a key', () => {
    expect(rig.gw.logs.length).toBeGreaterThan(0);
    // The kinds' tokens were fetched and sent: they are among the secrets checked.
    expect(rig.kindSecrets().sent.length).toBeGreaterThanOrEqual(3);
    expectClean(rig.gw.logs.join('\n'));
  });
});
