/** Guardrails: the entry points the pipeline uses (see each module for the rules they apply). */
export {
  compileGuardrails,
  selectGuardrails,
  type CompiledGuardrail,
  type GuardrailScope,
  type GuardrailDirection,
} from './rules.js';
export {
  checkInput,
  type BodyCheckResult,
  type InputCheckResult,
  type InputGuardDeps,
  type InputRequest,
  type RequestBody,
} from './request.js';
export { checkEmbeddingsInput, type EmbeddingsGuardDeps } from './embeddings-input.js';
export { checkOutput, type OutputCheckResult } from './response.js';
export { guardStream, hasOutputWebhook, responseAsEvents, type HitListener } from './stream.js';
export { guardrailBlockedError, toRecordedHits, type ScanHit } from './hits.js';
