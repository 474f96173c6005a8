/**
 * `gateway models`: the models and aliases a key or role may use, from the config file or, with
 * --url, from a running gateway's /v1/models (what a client with that key actually sees).
 */
import { Command } from 'commander';
import { findKey } from '../../config/access.js';
import { listModels, type ModelListEntry } from '../../routing/list-models.js';
import { requireConfig } from '../config-report.js';
import { CliExit, ExitCode } from '../exit-codes.js';
import { colors, table, type CliIO } from '../io.js';

export interface ModelsOptions {
  config?: string;
  key?: string;
  role?: string;
  json?: boolean;
  url?: string;
}

export function modelsCommand(io: CliIO): Command {
  return new Command('models')
    .description('list the models and aliases a key or role may use (all of them by default)')
    .option('-c, --config <file>', 'config file (default: $GATEWAY_CONFIG, ./gateway.yaml, ./gateway.example.yaml)')
    .option('--key <key>', "list what this gateway key's role may use (with --url: default $GATEWAY_KEY)")
    .option('--role <role>', 'list what this role may use')
    .option('--url <url>', 'ask a running gateway (GET <url>/v1/models) instead of reading the config')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (opts: ModelsOptions) => {
      const entries = await collectModels(opts, io);
      printModels(entries, opts, io);
    });
}

function usage(io: CliIO, message: string): never {
  io.err(`error: ${message}`);
  throw new CliExit(ExitCode.INVALID);
}

export async function collectModels(opts: ModelsOptions, io: CliIO): Promise<ModelListEntry[]> {
  if (opts.key !== undefined && opts.role !== undefined) usage(io, '--key and --role cannot be used together');
  if (opts.url !== undefined) {
    if (opts.role !== undefined)
      usage(io, "--role cannot be used with --url (the gateway lists what the key's role may use)");
    const key = opts.key ?? io.env.GATEWAY_KEY;
    if (!key) usage(io, '--url needs a gateway key: pass --key or set GATEWAY_KEY');
    return fetchModels(opts.url, key, io);
  }
  // Quiet about config warnings: the table marks unavailable providers itself.
  const { config, display } = await requireConfig(opts.config, io, { quiet: true });
  let role: string | undefined;
  if (opts.key !== undefined) {
    const entry = findKey(config.keys, opts.key);
    // Never echo the key itself: it may be a real secret typed on the command line.
    if (!entry) usage(io, `the given key matches no key in ${display}`);
    role = entry.role;
  } else if (opts.role !== undefined) {
    if (!config.roles.has(opts.role)) {
      usage(io, `unknown role "${opts.role}" (roles in ${display}: ${[...config.roles.keys()].join(', ') || 'none'})`);
    }
    role = opts.role;
  }
  return listModels(config, role);
}

/** `http://h:4000`, `http://h:4000/` and `http://h:4000/v1` all mean the same gateway. */
function modelsUrl(base: string): URL | undefined {
  try {
    const u = new URL(base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    const path = u.pathname.replace(/\/+$/, '');
    u.pathname = `${path.endsWith('/v1') ? path : `${path}/v1`}/models`;
    return u;
  } catch {
    return undefined;
  }
}

interface RemoteModel {
  id?: unknown;
  owned_by?: unknown;
  kind?: unknown;
  context_window?: unknown;
  max_output_tokens?: unknown;
  targets?: unknown;
  available?: unknown;
}

async function fetchModels(base: string, key: string, io: CliIO): Promise<ModelListEntry[]> {
  const url = modelsUrl(base);
  if (!url) usage(io, `--url must be an http:// or https:// URL`);
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      signal: AbortSignal.timeout(15_000),
    });
  } catch (e) {
    // fetch hides the reason (ECONNREFUSED, DNS) in `cause`.
    const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
    io.err(`error: cannot reach ${url.href}: ${cause}`);
    throw new CliExit(ExitCode.FAILURE);
  }
  const text = await res.text();
  let body: { data?: unknown; error?: { message?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const message = typeof body?.error?.message === 'string' ? body.error.message : res.statusText;
    io.err(`error: ${url.href} answered ${res.status}: ${message}`);
    throw new CliExit(ExitCode.FAILURE);
  }
  if (!Array.isArray(body?.data)) {
    io.err(`error: ${url.href} did not answer with a model list`);
    throw new CliExit(ExitCode.FAILURE);
  }
  return (body.data as RemoteModel[]).map((m) => {
    const targets = Array.isArray(m.targets) ? m.targets.map(String) : undefined;
    return {
      id: String(m.id),
      kind: targets ? 'alias' : 'model',
      modelKind: m.kind === 'embedding' ? 'embedding' : 'chat',
      owner: String(m.owned_by ?? ''),
      contextWindow: typeof m.context_window === 'number' ? m.context_window : NaN,
      ...(typeof m.max_output_tokens === 'number' ? { maxOutputTokens: m.max_output_tokens } : {}),
      // /v1/models does not report availability today; take it when a gateway does.
      available: m.available !== false,
      ...(targets ? { targets } : {}),
    };
  });
}

export function printModels(entries: readonly ModelListEntry[], opts: Pick<ModelsOptions, 'json'>, io: CliIO): void {
  if (opts.json) {
    io.out(JSON.stringify(entries, null, 2));
    return;
  }
  if (entries.length === 0) {
    io.out('no models');
    return;
  }
  const c = colors(io);
  const rows = entries.map((e) => [
    e.id,
    `${e.modelKind} ${e.kind}`,
    e.available ? e.owner : `${e.owner} (unavailable)`,
    Number.isFinite(e.contextWindow) ? String(e.contextWindow) : '-',
    e.targets?.join(', ') ?? '',
  ]);
  const [header, ...lines] = table(['ID', 'KIND', 'PROVIDER', 'CONTEXT', 'TARGETS'], rows);
  io.out(c.bold(header));
  lines.forEach((line, i) => {
    io.out(entries[i].available ? line : c.dim(line));
  });
}
