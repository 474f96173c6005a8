/**
 * RedisStore: the shared StateStore for several gateway instances. Counters are plain Redis
 * integer keys (prefixed with `keyPrefix`); reserve() and add() each run as ONE Lua script, so
 * they are atomic across every instance talking to the same Redis (standalone Redis or a single
 * primary; Redis Cluster is not supported because one reservation may span several slots).
 *
 * Failure behaviour: the store never queues commands while Redis is unreachable. A call made
 * while the connection is down rejects at once (or, while a connection attempt is in progress,
 * after at most about `commandTimeoutMs`) with StoreUnavailableError; a call in flight when the
 * connection drops is rejected as soon as the drop is seen, and is never re-sent on reconnect (a
 * reservation that may already have been applied must not be applied twice). Meanwhile the
 * client keeps reconnecting on its own (100 ms, 200 ms, 400 ms, 800 ms, then every second), so
 * the same instance works again once Redis is back. A command that times out may still have
 * been executed by Redis; the caller's policy decides how to treat that (as for any outage).
 *
 * The store never logs. Error messages name Redis only by host:port (never the URL's password).
 */

import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import { StoreUnavailableError, type CounterOp, type ReserveResult, type StateStore } from './store.js';

export interface RedisStoreOptions {
  /** redis://[user:password@]host:port[/db] or rediss://… */
  url: string;
  /** Prepended to every counter key, e.g. "gateway:". */
  keyPrefix: string;
  /** Upper bound on one command (and on waiting for a connection in progress). Default 500. */
  commandTimeoutMs?: number;
  /** Upper bound on establishing the TCP connection. Default 1000. */
  connectTimeoutMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 500;
const DEFAULT_CONNECT_TIMEOUT_MS = 1000;

/**
 * KEYS[i]: counter i. ARGV[3i-2]: amount (integer string), ARGV[3i-1]: limit ('' = none),
 * ARGV[3i]: expiresAt in epoch ms ('' = none). Ops are checked in order as if applied one after
 * the other (so two ops on one key add up); if any op with a limit would end above it, nothing is
 * written and {0, refusedIndex (0-based), current values} is returned; otherwise every key is
 * INCRBY'd (and PEXPIREAT'd when given) and {1, -1, each op's INCRBY result} is returned. Values
 * are raw GET strings (false/nil for a missing key) or integer replies, never Lua tostring()s
 * (which would turn 123456789012345 into 1.2345678901234e+14).
 * Everything that can fail (a key of the wrong type, a non-integer value) fails before any write.
 */
const RESERVE_LUA = `
local n = #KEYS
if #ARGV ~= 3 * n then return redis.error_reply('ERR gateway reserve: bad argument count') end
local raw = {}
local cur = {}
for i = 1, n do
  local k = KEYS[i]
  if cur[k] == nil then
    local r = redis.call('GET', k)
    local v = 0
    if r then
      v = tonumber(r)
      if v == nil then return redis.error_reply('ERR gateway reserve: counter is not an integer') end
    end
    raw[k] = r
    cur[k] = v
  end
end
local sim = {}
for k, v in pairs(cur) do sim[k] = v end
for i = 1, n do
  local k = KEYS[i]
  local amount = tonumber(ARGV[3 * i - 2])
  if amount == nil then return redis.error_reply('ERR gateway reserve: amount is not a number') end
  local nv = sim[k] + amount
  local limit = ARGV[3 * i - 1]
  if limit ~= '' then
    local l = tonumber(limit)
    if l == nil then return redis.error_reply('ERR gateway reserve: limit is not a number') end
    if nv > l then
      local out = {}
      for j = 1, n do out[j] = raw[KEYS[j]] end
      return {0, i - 1, out}
    end
  end
  sim[k] = nv
end
local out = {}
for i = 1, n do
  local k = KEYS[i]
  out[i] = redis.call('INCRBY', k, ARGV[3 * i - 2])
  local exp = ARGV[3 * i]
  if exp ~= '' then redis.call('PEXPIREAT', k, exp) end
end
return {1, -1, out}
`;

/** Same argument layout as RESERVE_LUA (limits ignored): INCRBY + PEXPIREAT every key, no checks. */
const ADD_LUA = `
local n = #KEYS
if #ARGV ~= 3 * n then return redis.error_reply('ERR gateway add: bad argument count') end
for i = 1, n do
  local r = redis.call('GET', KEYS[i])
  if r and tonumber(r) == nil then return redis.error_reply('ERR gateway add: counter is not an integer') end
  if tonumber(ARGV[3 * i - 2]) == nil then return redis.error_reply('ERR gateway add: amount is not a number') end
end
for i = 1, n do
  -- ARGV[3i-1] = '1': a correction, applied only while the counter exists
  if ARGV[3 * i - 1] ~= '1' or redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('INCRBY', KEYS[i], ARGV[3 * i - 2])
    local exp = ARGV[3 * i]
    if exp ~= '' then redis.call('PEXPIREAT', KEYS[i], exp) end
  end
end
return n
`;

type ScriptReply = [number, number, (string | number | null)[]];

/** The two scripts as ioredis custom commands (EVALSHA, falling back to EVAL on NOSCRIPT). */
/**
 * ioredis is loaded when the first Redis store is made: a gateway on the embedded store (the
 * default) does not carry it (about 20 MB of RSS). It is CommonJS, so it loads synchronously.
 */
const requireCjs = createRequire(import.meta.url);
function loadIoredis(): typeof Redis {
  return (requireCjs('ioredis') as typeof import('ioredis')).Redis;
}

interface ScriptedRedis extends Redis {
  gatewayReserve(numKeys: number, ...keysAndArgs: string[]): Promise<ScriptReply>;
  gatewayAdd(numKeys: number, ...keysAndArgs: string[]): Promise<number>;
}

/** host:port of a Redis URL, without credentials, for error messages. */
export function redisEndpoint(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || '127.0.0.1';
    return `${host}:${u.port || '6379'}`;
  } catch {
    return 'redis (unparseable URL)';
  }
}

function retryDelay(attempt: number): number {
  return Math.min(100 * 2 ** Math.min(Math.max(attempt - 1, 0), 4), 1000);
}

function parseValue(v: string | number | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return Number(v);
}

export class RedisStore implements StateStore {
  readonly kind = 'redis' as const;

  private readonly client: ScriptedRedis;
  private readonly prefix: string;
  private readonly endpoint: string;
  private readonly secrets: string[];
  private readonly commandTimeoutMs: number;
  private lastError: Error | undefined;
  private closed = false;

  constructor(opts: RedisStoreOptions) {
    this.prefix = opts.keyPrefix;
    this.endpoint = redisEndpoint(opts.url);
    this.commandTimeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.secrets = [];
    try {
      const u = new URL(opts.url);
      if (u.password) this.secrets.push(u.password, decodeURIComponent(u.password));
    } catch {
      // ioredis reports an unusable URL itself, on the first command
    }
    const options: RedisOptions = {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: this.commandTimeoutMs,
      connectTimeout: opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      retryStrategy: retryDelay,
      enableReadyCheck: true,
    };
    this.client = new (loadIoredis())(opts.url, options) as ScriptedRedis;
    this.client.on('error', (err: Error) => {
      // Required: without a listener ioredis prints every connection error itself.
      this.lastError = err;
    });
    this.client.on('ready', () => {
      this.lastError = undefined;
    });
    this.client.defineCommand('gatewayReserve', { lua: RESERVE_LUA });
    this.client.defineCommand('gatewayAdd', { lua: ADD_LUA });
  }

  /** Creates a store and waits until Redis answers; rejects (and releases it) otherwise. */
  static async connect(opts: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(opts);
    try {
      await store.waitReady(Math.max(store.commandTimeoutMs, opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS));
      await store.ping();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  async reserve(ops: readonly CounterOp[]): Promise<ReserveResult> {
    if (ops.length === 0) return { ok: true, values: [] };
    const args = this.scriptArgs(ops, true);
    const reply = await this.run('reserve', () => this.client.gatewayReserve(ops.length, ...args));
    const [ok, refused, raw] = reply;
    const values = raw.map(parseValue);
    return ok === 1 ? { ok: true, values } : { ok: false, refused, values };
  }

  async add(ops: readonly CounterOp[]): Promise<void> {
    if (ops.length === 0) return;
    const args = this.scriptArgs(ops, false);
    await this.run('add', () => this.client.gatewayAdd(ops.length, ...args));
  }

  async get(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const raw = await this.run('get', () => this.client.mget(...keys.map((k) => this.prefix + k)));
    return raw.map(parseValue);
  }

  async ping(): Promise<void> {
    await this.run('ping', () => this.client.ping());
  }

  async putDoc(key: string, value: string, ttlMs: number): Promise<void> {
    const ms = Math.max(1, Math.ceil(ttlMs));
    await this.run('putDoc', () => this.client.set(this.prefix + key, value, 'PX', ms));
  }

  async getDoc(key: string): Promise<string | undefined> {
    const v = await this.run('getDoc', () => this.client.get(this.prefix + key));
    return v ?? undefined;
  }

  async deleteDoc(key: string): Promise<boolean> {
    return (await this.run('deleteDoc', () => this.client.del(this.prefix + key))) > 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const client = this.client;
    if (client.status === 'ready') {
      try {
        await withTimeout(client.quit(), this.commandTimeoutMs);
      } catch {
        // fall through to a hard disconnect
      }
    }
    if (client.status !== 'end') client.disconnect();
  }

  // ---------------------------------------------------------------------------------------------

  private scriptArgs(ops: readonly CounterOp[], withLimits: boolean): string[] {
    const keys: string[] = [];
    const argv: string[] = [];
    ops.forEach((op, i) => {
      if (typeof op.key !== 'string' || op.key === '') throw new TypeError(`op ${i}: key must be a non-empty string`);
      if (!Number.isSafeInteger(op.amount))
        throw new TypeError(`op ${i}: amount must be a safe integer, got ${op.amount}`);
      let limit = !withLimits && op.ifExists ? '1' : '';
      if (withLimits && op.limit !== undefined && op.limit !== Number.POSITIVE_INFINITY) {
        if (!Number.isFinite(op.limit)) throw new TypeError(`op ${i}: limit must be a finite number, got ${op.limit}`);
        // Counters are integers, so value + amount <= limit  <=>  value + amount <= floor(limit).
        limit = BigInt(Math.floor(op.limit)).toString();
      }
      let expiresAt = '';
      if (op.expiresAt !== undefined) {
        if (!Number.isFinite(op.expiresAt))
          throw new TypeError(`op ${i}: expiresAt must be a finite epoch ms, got ${op.expiresAt}`);
        expiresAt = BigInt(Math.ceil(op.expiresAt)).toString();
      }
      keys.push(this.prefix + op.key);
      argv.push(String(op.amount), limit, expiresAt);
    });
    return [...keys, ...argv];
  }

  /** Runs one command once a connection is usable; every failure becomes StoreUnavailableError. */
  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      await this.waitReady(this.commandTimeoutMs);
      return await fn();
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      throw this.unavailable(`${what} failed`, err);
    }
  }

  /**
   * Resolves when the connection is ready. Fails at once when Redis is known to be down (the last
   * attempt failed and a reconnect is pending) or the store is closed; while a connection attempt
   * is in progress, waits for it for at most `ms`.
   */
  private waitReady(ms: number): Promise<void> {
    const client = this.client;
    if (this.closed || client.status === 'end') {
      return Promise.reject(this.unavailable('store is closed'));
    }
    if (client.status === 'ready') return Promise.resolve();
    if (client.status === 'reconnecting' || client.status === 'close') {
      return Promise.reject(this.unavailable('not connected', this.lastError));
    }
    if (client.status === 'wait') client.connect().catch(() => undefined);
    return new Promise<void>((resolve, reject) => {
      const done = (err?: StoreUnavailableError): void => {
        clearTimeout(timer);
        client.off('ready', onReady);
        client.off('close', onClose);
        client.off('end', onClose);
        if (err) reject(err);
        else resolve();
      };
      const onReady = (): void => done();
      const onClose = (): void => done(this.unavailable('connection failed', this.lastError));
      const timer = setTimeout(() => done(this.unavailable(`not connected after ${ms} ms`, this.lastError)), ms);
      client.once('ready', onReady);
      client.once('close', onClose);
      client.once('end', onClose);
    });
  }

  private unavailable(what: string, cause?: unknown): StoreUnavailableError {
    let detail = '';
    if (cause instanceof Error && cause.message) detail = `: ${cause.message}`;
    else if (cause !== undefined && typeof cause !== 'object') detail = `: ${String(cause)}`;
    let message = `Redis at ${this.endpoint} unavailable (${what})${detail}`;
    for (const s of this.secrets) if (s) message = message.split(s).join('***');
    return new StoreUnavailableError(message, cause === undefined ? undefined : { cause });
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
