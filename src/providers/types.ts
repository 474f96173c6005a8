import type { ProviderApi } from '../config/types.js';
import type { WireFormatId } from '../core/canonical.js';

/** A provider kind is data plus tiny functions; adding one is one file and a registry line. */
export interface HttpProviderKind {
  api: Exclude<ProviderApi, 'mock'>;
  speaks: WireFormatId;
  /** Path of the chat endpoint, appended to the provider's base_url. */
  chatPath: string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
}
