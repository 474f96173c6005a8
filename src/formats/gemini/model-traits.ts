/**
 * What the Gemini encoder and decoder need to know about a Gemini model, from its name when the
 * config does not say.
 */

/** Gemini 2.5 and later think (and sign their function calls); earlier ones refuse `thinkingConfig`. */
export function geminiModelThinks(model: string, configured?: boolean): boolean {
  if (configured !== undefined) return configured;
  return /^gemini-(?:2\.5|[3-9])/.test(baseName(model));
}

/**
 * Gemini 3 and later: they take a `thinkingLevel` (low, high) rather than a token budget, and
 * structured output next to tools.
 */
export function geminiModelTakesThinkingLevel(model: string): boolean {
  return /^gemini-[3-9]/.test(baseName(model));
}

/** The name after `models/` or a router prefix, lower-cased. */
function baseName(model: string): string {
  return model.slice(model.lastIndexOf('/') + 1).toLowerCase();
}
