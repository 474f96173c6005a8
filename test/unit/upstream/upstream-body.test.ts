import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../../../src/core/errors.js';
import { MAX_WHOLE_BODY_BYTES, UpstreamBody } from '../../../src/upstream/upstream-body.js';

/** undici's controller as the body sees it: pause/resume/abort, recorded. */
function controller() {
  const c = {
    paused: false,
    aborted: false,
    reason: null as Error | null,
    pauses: 0,
    resumes: 0,
    pause() {
      c.paused = true;
      c.pauses++;
    },
    resume() {
      if (c.paused) c.resumes++;
      c.paused = false;
    },
    abort(reason: Error) {
      c.aborted = true;
      c.reason = reason;
    },
  };
  return c;
}
const tooLarge = () => new GatewayError('upstream_error', 'too large');
const make = () => {
  const c = controller();
  return { c, body: new UpstreamBody(c as unknown as Dispatcher.DispatchController, tooLarge) };
};

describe('UpstreamBody', () => {
  it('bytes(): the chunks that came before and after the reader, joined', async () => {
    const { body } = make();
    body.push(Buffer.from('{"a":'));
    const whole = body.bytes();
    body.push(Buffer.from('1}'));
    body.end();
    expect((await whole).toString()).toBe('{"a":1}');
  });

  it('bytes(): rejects with the transfer error', async () => {
    const { body } = make();
    const whole = body.bytes();
    body.fail(new GatewayError('upstream_timeout', 'late'));
    await expect(whole).rejects.toMatchObject({ code: 'upstream_timeout' });
  });

  it('bytes(): a body over the limit is refused and the transfer aborted', async () => {
    const { body, c } = make();
    const whole = body.bytes();
    body.push(Buffer.alloc(MAX_WHOLE_BODY_BYTES + 1));
    await expect(whole).rejects.toThrow('too large');
    expect(c.aborted).toBe(true);
  });

  it('iteration: chunks in order, pausing the socket while the reader is behind and resuming after', async () => {
    const { body, c } = make();
    const big = Buffer.alloc(40 * 1024, 1);
    body.push(big);
    body.push(big);
    expect(c.paused).toBe(true);
    const it = body[Symbol.asyncIterator]();
    expect((await it.next()).value).toBe(big);
    expect(c.paused).toBe(true); // still 40 KiB behind: more than half the high-water mark
    expect((await it.next()).value).toBe(big);
    expect(c.paused).toBe(false);
    const last = it.next();
    body.push(Buffer.from('x'));
    expect((await last).value?.toString()).toBe('x');
    body.end();
    expect((await it.next()).done).toBe(true);
    expect(c.resumes).toBe(1);
  });

  it('iteration: an error after some chunks reaches the reader; return() aborts an unfinished transfer', async () => {
    const a = make();
    const it = a.body[Symbol.asyncIterator]();
    a.body.push(Buffer.from('one'));
    expect((await it.next()).value?.toString()).toBe('one');
    a.body.fail(new Error('cut'));
    await expect(it.next()).rejects.toThrow('cut');

    const b = make();
    const it2 = b.body[Symbol.asyncIterator]();
    b.body.push(Buffer.from('one'));
    await it2.return?.(undefined);
    expect(b.c.aborted).toBe(true);
  });

  it('dump(): small bodies are read to the end, large ones aborted; a body is read one way only', async () => {
    const a = make();
    const dumped = a.body.dump();
    a.body.push(Buffer.alloc(1000));
    a.body.end();
    await dumped;
    expect(a.c.aborted).toBe(false);

    const b = make();
    void b.body.dump();
    b.body.push(Buffer.alloc(200 * 1024));
    expect(b.c.aborted).toBe(true);
    expect(() => b.body.bytes()).rejects.toThrow('already read');
  });
});
