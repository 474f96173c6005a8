/**
 * The `model` a response names (README, "The model a response names"): the name the caller sent
 * (an alias or a concrete id), on every path, streams included; `x-gateway-model` carries the
 * concrete model. Clients compare it with what they asked for: Claude Code keeps an assistant
 * turn's signed thinking only when the two match, so a tool loop through an alias needs it.
 *
 * Pass-through bodies are not re-serialised: the member is rewritten in place in the text. In
 * both formats the top-level `model` comes before any content, and text inside JSON strings
 * cannot hold an unescaped quote, so the first `"model": "…"` member of an event or body is the
 * one the format defines.
 */

const MODEL_MEMBER = /"model"\s*:\s*"(?:[^"\\]|\\.)*"/;
const MODEL_MEMBERS = new RegExp(MODEL_MEMBER.source, 'g');

/** The first `model` member of a JSON text, renamed. */
export function renameModelIn(text: string, name: string): string {
  const member = `"model":${JSON.stringify(name)}`;
  return text.replace(MODEL_MEMBER, () => member);
}

/**
 * Renames the model in relayed SSE runs. OpenAI chat repeats `model` in every chunk (and nothing
 * else in a chunk is an unescaped `model` key); Anthropic names it once, in `message_start`, so
 * only the runs up to the first rename are touched.
 */
export class StreamModelRenamer {
  private readonly member: string;
  private done = false;

  constructor(
    name: string,
    private readonly everyEvent: boolean,
  ) {
    this.member = `"model":${JSON.stringify(name)}`;
  }

  run(text: string): string {
    if (this.done || text.length === 0) return text;
    if (this.everyEvent) return text.replace(MODEL_MEMBERS, () => this.member);
    let renamed = false;
    const out = text.replace(MODEL_MEMBER, () => {
      renamed = true;
      return this.member;
    });
    if (renamed) this.done = true;
    return out;
  }
}
