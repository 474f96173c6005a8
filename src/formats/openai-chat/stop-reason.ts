import type { FinishReason } from '../../core/canonical.js';

/** @see https://platform.openai.com/docs/api-reference/chat/object (choices[].finish_reason) */
export function toOpenaiFinishReason(f: FinishReason): string {
  switch (f) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return f;
    default:
      return 'stop';
  }
}

export function fromOpenaiFinishReason(raw: string | null | undefined): FinishReason {
  switch (raw) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return raw;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}
