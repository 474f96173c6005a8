import type { ChatResponse, ContentPart, StreamEvent } from './canonical.js';

/** Collect a canonical event stream into one response (non-streaming callers of a streaming source). */
export async function foldStream(events: AsyncIterable<StreamEvent>): Promise<ChatResponse> {
  const folder = new StreamFolder();
  for await (const ev of events) {
    if (ev.type === 'error') throw ev.error;
    folder.push(ev);
  }
  return folder.response;
}

/** Folds canonical events one at a time (for a stream that is relayed and kept at once). */
export class StreamFolder {
  readonly response: ChatResponse = {
    id: '',
    model: '',
    created: 0,
    content: [],
    finish: 'other',
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  private readonly blocks = new Map<number, ContentPart>();

  push(ev: StreamEvent): void {
    const res = this.response;
    switch (ev.type) {
      case 'message_start':
        res.id = ev.id;
        res.model = ev.model;
        res.created = ev.created;
        break;
      case 'block_start': {
        const b = ev.block;
        const part: ContentPart =
          b.kind === 'tool_call'
            ? { type: 'tool_call', id: b.id, name: b.name, arguments: '' }
            : b.kind === 'reasoning'
              ? { type: 'reasoning', text: '' }
              : { type: 'text', text: '' };
        this.blocks.set(ev.index, part);
        res.content.push(part);
        break;
      }
      case 'block_delta': {
        const part = this.blocks.get(ev.index);
        const d = ev.delta;
        if (!part) break;
        if ((d.kind === 'text' && part.type === 'text') || (d.kind === 'reasoning' && part.type === 'reasoning'))
          part.text += d.text;
        else if (d.kind === 'signature' && part.type === 'reasoning')
          part.signature = (part.signature ?? '') + d.signature;
        else if (d.kind === 'tool_arguments' && part.type === 'tool_call') part.arguments += d.json;
        break;
      }
      case 'block_stop':
      case 'error':
        break;
      case 'message_stop':
        res.finish = ev.finish;
        res.stopSequence = ev.stopSequence;
        res.usage = ev.usage;
        break;
    }
  }
}
