/**
 * Structured logging: one JSON object per line by default; a readable, coloured form for a
 * terminal. Secrets never reach here: callers pass key ids, never keys, and catalogue messages.
 * Top-level string fields are bounded (bound-field.ts); the readable form escapes control
 * characters (JSON escapes them already), so no field can forge a line or drive the terminal.
 */

import { Chalk } from 'chalk';
import { boundField, escapeControls, MAX_FIELD_CHARS } from './bound-field.js';
import { isoTime } from './iso-time.js';
import { stdoutWriter } from './log-writer.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  /** Whether a line at this level would be written (skip building it otherwise). */
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** json (default): one object per line; pretty: a short readable line, coloured when `color`. */
  format?: 'json' | 'pretty';
  color?: boolean;
  /** Where each line goes (newline included); default: stdout, batched per event-loop turn (log-writer.ts). */
  write?: (line: string) => void;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const min = RANK[opts.level ?? 'info'];
  const write = opts.write ?? stdoutWriter().write;
  const pretty = opts.format === 'pretty' ? prettyLine(new Chalk({ level: opts.color ? 1 : 0 })) : undefined;
  return {
    log(level, msg, fields) {
      if (RANK[level] < min) return;
      const f = boundFields(fields ?? {});
      if (pretty) return write(`${pretty(isoTime(Date.now()), level, msg, f)}\n`);
      write(`${jsonLine(level, msg, f)}\n`);
    },
    enabled: (level) => RANK[level] >= min,
  };
}

/** The same fields, with over-long strings cut (a copy only when one is). */
function boundFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k in fields) {
    const v = fields[k];
    if (typeof v === 'string' && v.length > MAX_FIELD_CHARS) (out ??= { ...fields })[k] = boundField(v);
  }
  return out ?? fields;
}

/** What follows `time` on a line, up to the message's JSON. */
const LEVEL_HEAD: Record<LogLevel, string> = {
  debug: ',"level":"debug","msg":',
  info: ',"level":"info","msg":',
  warn: ',"level":"warn","msg":',
  error: ',"level":"error","msg":',
};

/**
 * Exactly `JSON.stringify({ time, level, msg, ...f })`, where `time` is the clock unless f has
 * its own (a request record's arrival), which keeps the first place. Written as the head joined
 * with f's own JSON: copying a request record's ~25 fields into a new object was the dearest
 * part of its line. Only the layouts where the join is exact take this way (jsonLayout).
 */
function jsonLine(level: LogLevel, msg: string, f: Record<string, unknown>): string {
  const layout = jsonLayout(f);
  if (layout === 'copy') {
    const time = Object.hasOwn(f, 'time') ? undefined : isoTime(Date.now());
    return JSON.stringify({ time, level, msg, ...f });
  }
  const head = LEVEL_HEAD[level] + JSON.stringify(msg);
  const body = JSON.stringify(f);
  if (layout === 'clock') {
    const time = `{"time":"${isoTime(Date.now())}"${head}`;
    return body.length === 2 ? `${time}}` : `${time},${body.slice(1)}`;
  }
  // f's JSON starts with its own time: `{"time":"…"`, then the rest of f.
  const cut = '{"time":'.length + JSON.stringify(f.time).length;
  return body.slice(0, cut) + head + body.slice(cut);
}

/**
 * How f's own JSON joins the line's head: `clock` (no time of its own), `own` (its time is a
 * string and its first key), or `copy` (the spread, for what a join would order differently: a
 * time further in, a `level` or `msg` field, an index-like key, which JSON puts first).
 */
function jsonLayout(f: Record<string, unknown>): 'clock' | 'own' | 'copy' {
  let first = true;
  let own = false;
  for (const k in f) {
    const c = k.charCodeAt(0);
    if (first && k === 'time') own = typeof f.time === 'string';
    else if (k === 'time' || k === 'level' || k === 'msg' || (c >= 48 && c <= 57)) return 'copy';
    first = false;
  }
  return own ? 'own' : Object.hasOwn(f, 'time') ? 'copy' : 'clock';
}

type Paint = InstanceType<typeof Chalk>;

function prettyLine(c: Paint) {
  const levelColour: Record<LogLevel, (s: string) => string> = {
    debug: c.gray,
    info: c.cyan,
    warn: c.yellow,
    error: c.red,
  };
  // Every value is escaped before colouring (the colours are the only escapes written).
  const text = (v: unknown): string => escapeControls(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));
  return (time: string, level: LogLevel, msg: string, f: Record<string, unknown>): string => {
    const clock = c.gray(time.slice(11, 23));
    if (msg === 'request' && typeof f.status === 'number') {
      const status =
        f.status >= 500
          ? c.red(String(f.status))
          : f.status >= 400
            ? c.yellow(String(f.status))
            : c.green(String(f.status));
      const route =
        f.served_model && f.served_model !== f.model
          ? `${text(f.model)} → ${text(f.served_model)}`
          : text(f.model ?? '');
      const parts = [
        clock,
        status,
        text(f.endpoint),
        route,
        `${f.latency_ms} ms`,
        f.stream ? 'stream' : '',
        f.input_tokens !== undefined ? `in ${f.input_tokens} out ${f.output_tokens ?? 0}` : '',
        typeof f.cost_usd === 'number' ? `$${f.cost_usd.toFixed(6)}` : '',
        Number(f.attempts) > 1 ? `${f.attempts} attempts` : '',
        f.error_code ? c.red(`${text(f.error_code)} (${text(f.fault)})`) : '',
        f.key_id ? c.gray(`key ${text(f.key_id)}`) : '',
        c.gray(text(f.correlation_id)),
      ];
      return parts.filter((p) => p !== '').join('  ');
    }
    const rest = Object.entries(f)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${escapeControls(k)}=${text(v)}`)
      .join(' ');
    return (
      `${clock}  ${levelColour[level](level.toUpperCase())}  ${escapeControls(msg)}` +
      `${rest ? `  ${c.gray(rest)}` : ''}`
    );
  };
}

/** For tests and embedding: drops everything. */
export const silentLogger: Logger = { log() {}, enabled: () => false };
