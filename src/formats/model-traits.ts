/**
 * What a translation needs to know about the model a request goes to, when the config does not
 * say: guessed from the upstream model name (a router prefix such as `openai/` is looked through).
 * Only translation uses these; pass-through forwards the caller's fields and the provider decides.
 */

/** The name after the last `/` (`openai/gpt-5` on a router → `gpt-5`), lower-cased. */
function baseName(upstreamName: string): string {
  return upstreamName.slice(upstreamName.lastIndexOf('/') + 1).toLowerCase();
}

/**
 * OpenAI reasoning models (o1, o3, o4-mini, gpt-5…, but not the gpt-5 `-chat` variants) take
 * `reasoning_effort` and `max_completion_tokens`, and refuse `max_tokens` and a temperature other
 * than 1; other chat models refuse `reasoning_effort`. `configured`: the model's `reasoning` setting.
 */
export function openaiModelReasons(upstreamName: string, configured?: boolean): boolean {
  if (configured !== undefined) return configured;
  const name = baseName(upstreamName);
  return /^(?:o[1-9]|gpt-5)/.test(name) && !/-chat/.test(name);
}

/** Claude models before 3.7 (and Claude 2 / Instant) refuse `thinking`; later ones and other hosts' models take it. */
export function anthropicModelThinks(upstreamName: string, configured?: boolean): boolean {
  if (configured !== undefined) return configured;
  return !/^claude-(?:instant|2|3-(?!7))/.test(baseName(upstreamName));
}

/**
 * Native structured output (`output_config.format`): Claude Opus 4.1, and Claude 4.5 and later
 * (`claude-sonnet-4-5`, `claude-haiku-4-5-20251001`, `claude-opus-5`…). Other models answer
 * through a forced tool instead (structured-output.ts).
 * @see https://docs.claude.com/en/docs/build-with-claude/structured-outputs
 */
export function anthropicModelHasOutputFormat(upstreamName: string): boolean {
  const m = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(baseName(upstreamName));
  if (!m) return false;
  const major = Number(m[2]);
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  return major > 4 || (major === 4 && (minor >= 5 || (m[1] === 'opus' && minor >= 1)));
}
