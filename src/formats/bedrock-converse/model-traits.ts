/**
 * What the Converse encoder needs to know about a Bedrock model, from its id when the config does
 * not say. Bedrock ids name the vendor first (`anthropic.claude-sonnet-4-20250514-v1:0`), with a
 * region prefix for inference profiles (`us.anthropic.…`) and inside ARNs.
 */

import { anthropicModelThinks, bedrockClaudeName } from '../model-traits.js';

/**
 * Claude models take Anthropic's `thinking` in `additionalModelRequestFields`; other vendors'
 * models get no reasoning settings unless the model's `reasoning` setting says they take it.
 */
export function bedrockModelThinks(modelId: string, configured?: boolean): boolean {
  if (configured !== undefined) return configured;
  const claude = bedrockClaudeName(modelId);
  return claude !== undefined && anthropicModelThinks(claude);
}
