/**
 * Cross-reference checks that JSON Schema cannot express. They run on the interpolated data
 * even when the schema reported errors (so a file's problems all show up in one run), which is
 * why every access goes through the defensive helpers below instead of trusting the shape.
 * Messages quote ids, names and patterns, never string values (keys, api keys, URLs).
 */
import { checkAliasReach, checkMetricsExposure } from './exposure-checks.js';
import { formatPath, hint, type Anchor, type Locate, type PathSeg } from './issues.js';
import { regexBacktrackingRisk } from './regex-safety.js';
import { DEFAULTS } from './normalise.js';
import type { ConfigIssue } from './types.js';
import { buildCatalog, type Catalog, patternModels, patternNamesSomething } from './catalog.js';
import { arr, entries, keyDigest, type Obj, obj, parseBodyLimit, splitId, str } from './raw-data.js';

interface Ctx {
  c: Catalog;
  report: (severity: ConfigIssue['severity'], segs: PathSeg[], message: string, at?: Anchor) => void;
}

export function semanticChecks(data: Obj, file: string, locate: Locate, missingPaths: Set<string>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const ctx: Ctx = {
    c: buildCatalog(data),
    report: (severity, segs, message, at = 'value') =>
      issues.push({ severity, file, ...locate(segs, at), path: formatPath(segs), message }),
  };
  checkServer(ctx, data);
  checkProviders(ctx, data);
  checkAliases(ctx, data);
  checkModelKinds(ctx, data);
  checkRoutingPolicy(ctx, obj(data.routing), ['routing']);
  for (const [aid, a] of entries(data.aliases)) checkRoutingPolicy(ctx, obj(a), ['aliases', aid]);
  const roles = new Set(entries(data.roles).map(([r]) => r));
  for (const [rid, r] of entries(data.roles)) {
    arr(obj(r)?.models).forEach((p, i) => {
      checkPattern(ctx, str(p), ['roles', rid, 'models', i]);
    });
  }
  const keyRoles = checkKeys(ctx, data, roles, missingPaths);
  checkBudgets(ctx, data, roles, keyRoles);
  checkRateLimits(ctx, data, roles, keyRoles);
  checkState(ctx, obj(data.state));
  checkGuardrails(ctx, data, roles, keyRoles);
  checkMetricsExposure(ctx.report, data);
  checkAliasReach(ctx.report, data, ctx.c);
  return issues;
}

function checkServer({ report }: Ctx, data: Obj): void {
  const server = obj(data.server);
  const limit = server?.body_limit;
  if (typeof limit === 'string' && parseBodyLimit(limit) === 0) {
    report('error', ['server', 'body_limit'], 'must be at least 1 byte');
  }
  // Node refuses a headers timeout above the request timeout.
  const ms = (f: string, d: number) => (typeof server?.[f] === 'number' ? (server[f] as number) : d);
  const request = ms('request_timeout_ms', DEFAULTS.requestTimeoutMs);
  if (ms('headers_timeout_ms', DEFAULTS.headersTimeoutMs) > request)
    report('error', ['server', 'headers_timeout_ms'], `must be at most request_timeout_ms (${request})`);
  if (ms('body_read_timeout_ms', DEFAULTS.bodyReadTimeoutMs) >= request) {
    report(
      'warning',
      ['server', 'body_read_timeout_ms'],
      `has no effect: request_timeout_ms (${request}) ends a slow upload first`,
    );
  }
}

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function checkProviders({ report }: Ctx, data: Obj): void {
  for (const [pid, p] of entries(data.providers)) {
    const url = str(obj(p)?.base_url);
    if (url !== undefined && !isHttpUrl(url)) {
      report('error', ['providers', pid, 'base_url'], 'must be an http:// or https:// URL');
    }
    const api = str(obj(p)?.api);
    if (api === 'azure-openai' || api === 'azure-openai-responses') checkAzure(report, pid, obj(p) ?? {});
    if (api === 'bedrock' || api === 'bedrock-anthropic') checkBedrock(report, pid, obj(p) ?? {});
    if (api === 'vertex' || api === 'vertex-anthropic') checkVertex(report, pid, obj(p) ?? {});
    const entra = obj(obj(p)?.entra);
    const host = str(entra?.authority_host);
    if (host !== undefined && !isHttpUrl(host)) {
      report('error', ['providers', pid, 'entra', 'authority_host'], 'must be an http:// or https:// URL');
    }
    const byok = str(obj(p)?.byok);
    if (entra && byok !== undefined && byok !== 'never') {
      // A caller's key is one string; an Entra ID credential is a service principal's token.
      report('error', ['providers', pid, 'byok'], 'must be never on a provider that signs in with entra');
    }
  }
}

/** A Vertex AI location: a region or `global` (it becomes part of the endpoint's host name). */
const VERTEX_LOCATION = /^[a-z][a-z0-9-]{0,62}$/;

/** Vertex AI signs in with a service account's token: a caller's key (one string) cannot stand in for it. */
function checkVertex(report: Ctx['report'], pid: string, p: Obj): void {
  const location = str(obj(p.vertex)?.location);
  if (location !== undefined && !VERTEX_LOCATION.test(location)) {
    report('error', ['providers', pid, 'vertex', 'location'], 'must be a Vertex AI location (us-central1, global…)');
  }
  const byok = str(p.byok);
  if (byok !== undefined && byok !== 'never') {
    report('error', ['providers', pid, 'byok'], 'must be never on Vertex AI: it signs in with a service account');
  }
}

/** An Azure resource name (a subdomain of openai.azure.com). */
const AZURE_RESOURCE = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/** An Azure OpenAI endpoint is given once (base_url or resource), and one way to sign in. */
function checkAzure(report: Ctx['report'], pid: string, p: Obj): void {
  const resource = str(p.resource);
  if (resource !== undefined && !AZURE_RESOURCE.test(resource)) {
    report('error', ['providers', pid, 'resource'], 'must be an Azure resource name (letters, digits and "-")');
  }
  const url = p.base_url !== undefined;
  if (url === (p.resource !== undefined)) {
    const why = url ? 'give base_url or resource, not both' : 'needs base_url or resource (the Azure resource name)';
    report('error', ['providers', pid], why);
  }
  if (p.api_key !== undefined && p.entra !== undefined) {
    report('error', ['providers', pid, 'entra'], 'api_key and entra are two ways to sign in: give one');
  }
}

/**
 * A Bedrock provider signs in one way: a Bedrock API key (`api_key`, one string, so BYOK may be
 * allowed) or SigV4 (`aws`, or the environment's AWS credentials), where a caller's key cannot stand in.
 */
function checkBedrock(report: Ctx['report'], pid: string, p: Obj): void {
  if (p.api_key !== undefined && p.aws !== undefined) {
    report('error', ['providers', pid, 'aws'], 'api_key and aws are two ways to sign in: give one');
  }
  const byok = str(p.byok);
  if (p.api_key === undefined && byok !== undefined && byok !== 'never') {
    report('error', ['providers', pid, 'byok'], 'must be never on a provider that signs with SigV4 (no api_key)');
  }
}

/** Provider kinds with an embeddings endpoint (providers/<kind>.ts `embeddingsPath`; mock answers in-process). */
const EMBEDDING_APIS = new Set(['openai', 'openai-responses', 'azure-openai', 'azure-openai-responses', 'mock']);
const EMBEDDING_API_LIST = 'openai, openai-responses, azure-openai, azure-openai-responses or mock';

/**
 * Embedding models only where the provider kind has an embeddings endpoint, `dimensions` only on
 * them, and one kind per alias: a request is served by an alias's models of the endpoint's kind only.
 */
function checkModelKinds({ c, report }: Ctx, data: Obj): void {
  for (const [pid, p] of entries(data.providers)) {
    const api = str(obj(p)?.api);
    for (const [name, m] of entries(obj(p)?.models)) {
      const embedding = obj(m)?.kind === 'embedding';
      if (embedding && api !== undefined && !EMBEDDING_APIS.has(api)) {
        report(
          'error',
          ['providers', pid, 'models', name, 'kind'],
          `api "${api}" has no embeddings endpoint: an embedding model needs api ${EMBEDDING_API_LIST}`,
        );
      }
      if (!embedding && obj(m)?.dimensions !== undefined) {
        report('error', ['providers', pid, 'models', name, 'dimensions'], 'is for embedding models (kind: embedding)');
      }
    }
  }
  for (const aid of c.aliases.keys()) {
    const reached = [...patternModels(c, aid)];
    const embedding = reached.filter((m) => c.embeddingModels.has(m));
    const chat = reached.filter((m) => !c.embeddingModels.has(m));
    if (embedding.length === 0 || chat.length === 0) continue;
    report(
      'error',
      ['aliases', aid],
      `reaches embedding models (${embedding.join(', ')}) and chat models (${chat.join(', ')}): ` +
        'an alias serves one kind',
      'key',
    );
  }
}

function checkAliases({ c, report }: Ctx, _data: Obj): void {
  for (const [aid, a] of c.aliases) {
    const ns = splitId(aid)[0];
    if (c.providers.has(ns)) {
      report('error', ['aliases', aid], `alias namespace "${ns}" collides with provider id "${ns}"`, 'key');
    }
    arr(a.targets).forEach((t, i) => {
      const segs: PathSeg[] =
        typeof t === 'string' ? ['aliases', aid, 'targets', i] : ['aliases', aid, 'targets', i, 'model'];
      const m = str(t) ?? str(obj(t)?.model);
      if (m === undefined || !m.includes('/') || c.models.has(m)) return;
      if (c.aliases.has(m)) {
        report('error', segs, `"${m}" is an alias; targets must be concrete models (chain aliases with fallbacks)`);
      } else report('error', segs, `unknown model "${m}"${hint(m, c.models.keys())}`);
    });
    arr(a.fallbacks).forEach((f, i) => {
      const m = str(f);
      if (m === undefined || !m.includes('/') || c.models.has(m) || c.aliases.has(m)) return;
      report(
        'error',
        ['aliases', aid, 'fallbacks', i],
        `unknown model or alias "${m}"${hint(m, [...c.models.keys(), ...c.aliases.keys()])}`,
      );
    });
  }
  checkFallbackCycles({ c, report });
}

function isFailureMatch(m: unknown): boolean {
  if (typeof m === 'string') return ['connect', 'timeout', '5xx', 'auth'].includes(m);
  return typeof m === 'number' && Number.isInteger(m) && ([408, 409, 425, 429].includes(m) || (m >= 500 && m <= 599));
}

/** Settings ajv accepts one by one but that make no sense together. */
function checkRoutingPolicy({ report }: Ctx, r: Obj | undefined, at: PathSeg[]): void {
  if (!r) return;
  for (const list of ['retry_on', 'fallback_on']) {
    arr(r[list]).forEach((m, i) => {
      if (!isFailureMatch(m)) {
        report(
          'error',
          [...at, list, i],
          `${JSON.stringify(m)} is not a failure class or status: ` +
            'use connect, timeout, 5xx, auth, or a status among 408, 409, 425, 429, 500-599',
        );
      } else if (list === 'retry_on' && m === 'auth') {
        report(
          'error',
          [...at, list, i],
          'a rejected credential does not get better by retrying: use "auth" in fallback_on only',
        );
      }
    });
  }
  const retry = obj(r.retry);
  const initial = retry?.initial_backoff_ms;
  const max = retry?.max_backoff_ms;
  if (typeof initial === 'number' && typeof max === 'number' && max < initial) {
    report('error', [...at, 'retry', 'max_backoff_ms'], `must be at least initial_backoff_ms (${initial})`);
  }
}

/** Depth-first search over alias → alias fallback edges; each cycle is reported once. */
function checkFallbackCycles({ c, report }: Ctx): void {
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const reported = new Set<string>();
  const visit = (id: string): void => {
    state.set(id, 'active');
    stack.push(id);
    arr(c.aliases.get(id)?.fallbacks).forEach((f, i) => {
      const next = str(f);
      if (!next || !c.aliases.has(next)) return;
      if (state.get(next) === 'active') {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join('\0');
        if (reported.has(key)) return;
        reported.add(key);
        report('error', ['aliases', id, 'fallbacks', i], `alias fallback cycle: ${[...cycle, next].join(' -> ')}`);
      } else if (!state.has(next)) visit(next);
    });
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of c.aliases.keys()) if (!state.has(id)) visit(id);
}

/** Shape only; the schema reports malformed patterns, so they are skipped here. */
const WELL_FORMED = /^(\*|[^*/]+\/\*|[^*/]+\/[^*]+)$/;

function checkPattern({ c, report }: Ctx, pattern: string | undefined, segs: PathSeg[]): void {
  if (pattern === undefined || !WELL_FORMED.test(pattern) || patternNamesSomething(c, pattern)) return;
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    report(
      'error',
      segs,
      `pattern "${pattern}" matches nothing: "${prefix}" is neither a provider id nor an alias namespace` +
        `${hint(prefix, [...c.providers, ...c.namespaces])}`,
    );
  } else {
    report(
      'error',
      segs,
      `"${pattern}" matches no model or alias${hint(pattern, [...c.models.keys(), ...c.aliases.keys()])}`,
    );
  }
}

/** Checks keys; returns key id → role id for budget and guardrail references. */
function checkKeys({ report }: Ctx, data: Obj, roles: Set<string>, missingPaths: Set<string>): Map<string, string> {
  const ids = new Map<string, number>();
  const digests = new Map<string, string>();
  const keyRoles = new Map<string, string>();
  arr(data.keys).forEach((k, i) => {
    const o = obj(k) ?? {};
    const id = str(o.id);
    const role = str(o.role);
    if (id !== undefined) {
      if (ids.has(id)) report('error', ['keys', i, 'id'], `duplicate key id "${id}" (also keys[${ids.get(id)}])`);
      else ids.set(id, i);
      if (role !== undefined) keyRoles.set(id, role);
    }
    if (role !== undefined && !roles.has(role)) {
      report('error', ['keys', i, 'role'], `unknown role "${role}"${hint(role, roles)}`);
    }
    const key = str(o.key);
    if (key === undefined || missingPaths.has(formatPath(['keys', i, 'key']))) return;
    const digest = keyDigest(key);
    if (!digest) {
      report('error', ['keys', i, 'key'], 'a "sha256:" key must be followed by exactly 64 hex digits');
      return;
    }
    if (!key.startsWith('sha256:') && key.length < 8) {
      report('error', ['keys', i, 'key'], 'key must be at least 8 characters long');
    }
    const hex = digest.toString('hex');
    const first = digests.get(hex);
    if (first !== undefined)
      report('error', ['keys', i, 'key'], `same key value as ${first}; every key must be unique`);
    else digests.set(hex, `keys[${i}]${id === undefined ? '' : ` ("${id}")`}`);
  });
  return keyRoles;
}

function checkUniqueIds({ report }: Ctx, section: string, items: unknown[]): void {
  const seen = new Map<string, number>();
  items.forEach((it, i) => {
    const id = str(obj(it)?.id);
    if (id === undefined) return;
    if (seen.has(id)) report('error', [section, i, 'id'], `duplicate id "${id}" (also ${section}[${seen.get(id)}])`);
    else seen.set(id, i);
  });
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function checkRateLimits(ctx: Ctx, data: Obj, roles: Set<string>, keyRoles: Map<string, string>): void {
  const { c, report } = ctx;
  const limits = arr(data.rate_limits);
  checkUniqueIds(ctx, 'rate_limits', limits);
  limits.forEach((l, i) => {
    const scope = obj(obj(l)?.scope) ?? {};
    const key = str(scope.key);
    if (key !== undefined && !keyRoles.has(key))
      report('error', ['rate_limits', i, 'scope', 'key'], `unknown key id "${key}"${hint(key, keyRoles.keys())}`);
    for (const field of ['role', 'each_key_of_role']) {
      const role = str(scope[field]);
      if (role !== undefined && !roles.has(role))
        report('error', ['rate_limits', i, 'scope', field], `unknown role "${role}"${hint(role, roles)}`);
    }
    const model = str(scope.model);
    if (model !== undefined && !c.models.has(model) && !c.aliases.has(model)) {
      report(
        'error',
        ['rate_limits', i, 'scope', 'model'],
        `unknown model or alias "${model}"${hint(model, [...c.models.keys(), ...c.aliases.keys()])}`,
      );
    }
  });
}

function checkState({ report }: Ctx, st: Obj | undefined): void {
  if (!st) return;
  const store = str(st.store) ?? 'memory';
  if (store === 'redis' && st.url === undefined)
    report('error', ['state'], 'store "redis" needs a url (redis://host:port)', 'key');
  if (store === 'memory' && st.url !== undefined)
    report('warning', ['state', 'url'], 'url is only used with store "redis"', 'key');
  if (store === 'redis') {
    for (const f of ['path', 'persist', 'flush_ms'])
      if (st[f] !== undefined) report('warning', ['state', f], `${f} is only used with store "memory"`, 'key');
  }
}

function checkBudgets(ctx: Ctx, data: Obj, roles: Set<string>, keyRoles: Map<string, string>): void {
  const { c, report } = ctx;
  const budgets = arr(data.budgets);
  checkUniqueIds(ctx, 'budgets', budgets);
  const roleModels = (role: string): Set<string> => {
    const out = new Set<string>();
    for (const p of arr(obj(obj(data.roles)?.[role])?.models)) {
      const s = str(p);
      if (s) for (const m of patternModels(c, s)) out.add(m);
    }
    return out;
  };
  budgets.forEach((b, i) => {
    const o = obj(b) ?? {};
    const scope = obj(o.scope) ?? {};
    let reach: Set<string> | undefined;
    if (scope.global === true) reach = new Set(c.models.keys());
    const key = str(scope.key);
    if (key !== undefined) {
      const role = keyRoles.get(key);
      if (role === undefined)
        report('error', ['budgets', i, 'scope', 'key'], `unknown key id "${key}"${hint(key, keyRoles.keys())}`);
      else reach = roleModels(role);
    }
    for (const field of ['role', 'each_key_of_role']) {
      const role = str(scope[field]);
      if (role === undefined) continue;
      if (!roles.has(role))
        report('error', ['budgets', i, 'scope', field], `unknown role "${role}"${hint(role, roles)}`);
      else reach = roleModels(role);
    }
    const tz = str(o.timezone);
    if (tz !== undefined && !isTimeZone(tz)) {
      report(
        'error',
        ['budgets', i, 'timezone'],
        `unknown time zone "${tz}" (use an IANA name such as "Europe/Berlin" or "UTC")`,
      );
    }
    const unpriced = [...(reach ?? [])].filter((m) => c.models.get(m) === false);
    if (unpriced.length > 0) {
      const list = unpriced.slice(0, 5).join(', ') + (unpriced.length > 5 ? `, and ${unpriced.length - 5} more` : '');
      report(
        'warning',
        ['budgets', i],
        `models in this budget's reach have no price and will count as costing nothing: ${list}`,
      );
    }
  });
}

const REDACTABLE = new Set(['regex', 'keywords', 'detectors']);

/** A guardrail regex must compile, and must not be able to freeze the gateway (regex-safety.ts). */
function checkGuardrailRegex({ report }: Ctx, pattern: string, flags: string, segs: PathSeg[]): void {
  try {
    new RegExp(pattern, flags);
  } catch (e) {
    // V8 puts the pattern first ("Invalid regular expression: /(/: Unterminated group"); keep the reason.
    const reason = String((e as Error).message)
      .split(': ')
      .pop();
    report('error', segs, `invalid regular expression: ${reason}`);
    return;
  }
  const risk = regexBacktrackingRisk(pattern, flags);
  if (risk) report(risk.severity, segs, risk.message);
}

function checkGuardrails(ctx: Ctx, data: Obj, roles: Set<string>, keyRoles: Map<string, string>): void {
  const { report } = ctx;
  const guardrails = arr(data.guardrails);
  checkUniqueIds(ctx, 'guardrails', guardrails);
  guardrails.forEach((g, i) => {
    const o = obj(g) ?? {};
    const match = obj(o.match) ?? {};
    arr(match.roles).forEach((r, j) => {
      const s = str(r);
      if (s !== undefined && !roles.has(s))
        report('error', ['guardrails', i, 'match', 'roles', j], `unknown role "${s}"${hint(s, roles)}`);
    });
    arr(match.keys).forEach((k, j) => {
      const s = str(k);
      if (s !== undefined && !keyRoles.has(s))
        report('error', ['guardrails', i, 'match', 'keys', j], `unknown key id "${s}"${hint(s, keyRoles.keys())}`);
    });
    arr(match.models).forEach((p, j) => {
      checkPattern(ctx, str(p), ['guardrails', i, 'match', 'models', j]);
    });
    const check = obj(o.check) ?? {};
    if (check.type === 'regex' && typeof check.pattern === 'string')
      checkGuardrailRegex(ctx, check.pattern, str(check.flags) ?? '', ['guardrails', i, 'check', 'pattern']);
    if (check.type === 'webhook' && typeof check.url === 'string' && !isHttpUrl(check.url)) {
      report('error', ['guardrails', i, 'check', 'url'], 'must be an http:// or https:// URL');
    }
    const type = str(check.type);
    if (o.action === 'redact' && type !== undefined && !REDACTABLE.has(type)) {
      report(
        'error',
        ['guardrails', i, 'action'],
        `action "redact" needs a regex, keywords or detectors check, not "${type}"`,
      );
    }
  });
}
