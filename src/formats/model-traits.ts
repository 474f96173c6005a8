/**
 * What a translation needs to know about the model a request goes to, when the config does not
 * say: guessed from the upstream model name (a router prefix such as `openai/` is looked through).
 * Translation uses these; pass-through forwards the caller's fields and the provider decides, except for Claude's
 * thinking modes (claudeThinkingModes), which it fits to the model.
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

/** The Claude model name inside a Bedrock id (`claude-3-7-sonnet-20250219`), or undefined for other vendors. */
export function bedrockClaudeName(modelId: string): string | undefined {
  const m = /(?:^|[./])anthropic\.(claude-[a-z0-9-]+?)(?:-v\d+(?::\d+)?)?$/i.exec(modelId);
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * The Claude model a cloud id names, in Anthropic's own spelling: Bedrock's
 * `[us.]anthropic.claude-3-5-sonnet-20240620-v1:0` (inside an ARN too) and Vertex's
 * `claude-sonnet-4-5@20250929` → `claude-3-5-sonnet-20240620`, `claude-sonnet-4-5`; other names as
 * baseName gives them.
 */
export function claudeName(upstreamName: string): string {
  const bedrock = bedrockClaudeName(upstreamName);
  if (bedrock) return bedrock;
  const name = baseName(upstreamName);
  const at = name.indexOf('@');
  return name.startsWith('claude-') && at > 0 ? name.slice(0, at) : name;
}

/** Claude models before 3.7 (and Claude 2 / Instant) refuse `thinking`; later ones and other hosts' models take it. */
export function anthropicModelThinks(upstreamName: string, configured?: boolean): boolean {
  if (configured !== undefined) return configured;
  return !/^claude-(?:instant|2|3-(?!7))/.test(claudeName(upstreamName));
}

/**
 * Adaptive thinking (`thinking: {type: "adaptive"}`, steered by `output_config.effort`): Claude Opus and Sonnet 4.6
 * and later; Claude 4.5 and earlier refuse it and take a budget (`enabled` with `budget_tokens`). Names of other
 * forms (a newer family) are taken to be newer models.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html
 */
export function anthropicModelThinksAdaptively(upstreamName: string): boolean {
  const name = claudeName(upstreamName);
  if (/^claude-(?:instant|2|3)/.test(name)) return false;
  const m = /^claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(name);
  if (!m) return true;
  const major = Number(m[1]);
  const minor = m[2] === undefined ? 0 : Number(m[2]);
  return major > 4 || (major === 4 && minor >= 6);
}

/** What a Claude model takes of Anthropic's thinking settings. */
export interface ClaudeThinkingModes {
  /** `thinking: {type: "adaptive"}`. */
  adaptive: boolean;
  /** `thinking: {type: "enabled", budget_tokens}`. */
  enabled: boolean;
  /** `output_config.effort`. */
  effort: boolean;
}

/**
 * The thinking settings a Claude model takes (platform ids read through claudeName), or undefined for names that are
 * not Claude's (a non-Claude model behind an Anthropic-compatible server decides for itself). Adaptive thinking:
 * Claude 4.6 and later; a budget (`enabled`): Claude 3.7 up to 4.6, not Opus 4.7 and later, Claude 5 or a newer
 * family (a 400 "thinking.type.enabled is not supported for this model"); `output_config.effort`: Opus 4.5 and
 * Claude 4.6 and later. Claude before 3.7 takes no thinking at all.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html
 */
export function claudeThinkingModes(upstreamName: string): ClaudeThinkingModes | undefined {
  const name = claudeName(upstreamName);
  if (!name.startsWith('claude-')) return undefined;
  if (!anthropicModelThinks(name)) return { adaptive: false, enabled: false, effort: false };
  if (/^claude-3-7/.test(name)) return { adaptive: false, enabled: true, effort: false };
  const m = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(name);
  if (!m) return { adaptive: true, enabled: false, effort: true }; // a newer family (mythos, fable…)
  const major = Number(m[2]);
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  const atLeast = (ma: number, mi: number) => major > ma || (major === ma && minor >= mi);
  return {
    adaptive: atLeast(4, 6),
    enabled: !atLeast(5, 0) && !(m[1] === 'opus' && atLeast(4, 7)),
    effort: atLeast(4, 6) || (m[1] === 'opus' && atLeast(4, 5)),
  };
}

/**
 * Native structured output (`output_config.format`): Claude Opus 4.1, and Claude 4.5 and later
 * (`claude-sonnet-4-5`, `claude-haiku-4-5-20251001`, `claude-opus-5`…). Other models answer
 * through a forced tool instead (structured-output.ts), as do Claude ids on Bedrock and Vertex
 * (claudeName's forms): each platform takes the forced tool, not every one takes `output_config.format`.
 * @see https://docs.claude.com/en/docs/build-with-claude/structured-outputs
 */
export function anthropicModelHasOutputFormat(upstreamName: string): boolean {
  const m = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(baseName(upstreamName));
  if (!m) return false;
  const major = Number(m[2]);
  const minor = m[3] === undefined ? 0 : Number(m[3]);
  return major > 4 || (major === 4 && (minor >= 5 || (m[1] === 'opus' && minor >= 1)));
}
