/**
 * pino behind the gateway's Logger interface ({ log, enabled }), set up to write the fields the
 * gateway's own logger writes (src/observe/logger.ts): level as its name, ISO `time` (a record's
 * own `time` wins, as there), `msg`, no pid or hostname, string fields bounded the same way. For
 * the benchmarks only (logger.mjs, gateway-child.mjs --logger pino): the comparison asked for.
 */

/**
 * pino, when installed: the gateway does not use it, so it may be absent (the comparison is then
 * skipped, or a pino lane fails saying why).
 */
export async function loadPino() {
  try {
    return (await import('pino')).default;
  } catch {
    return undefined;
  }
}

/** pino's async destination as asked about: writes of at least 4 KB, from the event loop. */
export const PINO_ASYNC = { sync: false, minLength: 4096 };

/**
 * `bound` is the build's bound-field.js module ({ boundField, MAX_FIELD_CHARS }), so the lines
 * are cut where the gateway's are.
 */
export function pinoLogger(pino, stream, { level = 'info', bound } = {}) {
  const p = pino(
    {
      level,
      base: null,
      timestamp: false,
      messageKey: 'msg',
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  const boundFields = (fields) => {
    let out;
    for (const k in fields) {
      const v = fields[k];
      if (bound && typeof v === 'string' && v.length > bound.MAX_FIELD_CHARS)
        (out ??= { ...fields })[k] = bound.boundField(v);
    }
    return out ?? fields;
  };
  return {
    log: (lvl, msg, fields) => p[lvl]({ time: new Date().toISOString(), ...boundFields(fields ?? {}) }, msg),
    enabled: (lvl) => p.isLevelEnabled(lvl),
  };
}
