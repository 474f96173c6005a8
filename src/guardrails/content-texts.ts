/**
 * The texts output guardrails read in canonical content (a response), and rebuilding content with
 * some of them replaced; input guardrails read the caller's body instead (request-texts.ts).
 * Read: text parts, tool-call arguments (JSON) and tool-result contents (recursively).
 * Not read: images, and reasoning parts — their signature covers the exact text, so a redacted
 * reasoning part would be refused when the caller sends it back.
 *
 * Mappers copy only what changed: with no change, the very same objects come back.
 */

import type { ChatResponse, ContentPart } from '../core/canonical.js';
import type { TextKind } from './scan.js';

export type TextMapper = (text: string, kind: TextKind) => string;

export function mapPartTexts(parts: ContentPart[], fn: TextMapper): ContentPart[] {
  let out: ContentPart[] | undefined;
  parts.forEach((p, i) => {
    const q = mapPart(p, fn);
    if (q !== p) (out ??= [...parts])[i] = q;
  });
  return out ?? parts;
}

function mapPart(p: ContentPart, fn: TextMapper): ContentPart {
  switch (p.type) {
    case 'text': {
      const text = fn(p.text, 'text');
      return text === p.text ? p : { ...p, text };
    }
    case 'tool_call': {
      const args = fn(p.arguments, 'json');
      return args === p.arguments ? p : { ...p, arguments: args };
    }
    case 'tool_result': {
      const content = mapPartTexts(p.content, fn);
      return content === p.content ? p : { ...p, content };
    }
    default:
      return p;
  }
}

export function mapResponseTexts(res: ChatResponse, fn: TextMapper): ChatResponse {
  const content = mapPartTexts(res.content, fn);
  return content === res.content ? res : { ...res, content };
}

/** Collects texts in mapper order (for webhooks) without changing anything. */
export function collectTexts(walk: (fn: TextMapper) => unknown): string[] {
  const texts: string[] = [];
  walk((t) => {
    texts.push(t);
    return t;
  });
  return texts;
}

/** Replaces texts in mapper order with `replacements` (same count as collectTexts gave). */
export function replaceTexts<T>(walk: (fn: TextMapper) => T, replacements: readonly string[]): T {
  let i = 0;
  return walk((t) => replacements[i++] ?? t);
}
