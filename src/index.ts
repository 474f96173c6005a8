/** Programmatic API: the same core the CLI uses. */
export { loadConfig, loadConfigText } from './config/load.js';
export type * from './config/types.js';
export { createGateway, type Gateway, type GatewayOptions } from './server/http.js';
export { listModels, type ModelListEntry } from './routing/list-models.js';
export { resolveModel, type Candidate, type Resolution } from './routing/resolve-model.js';
export { GatewayError, ERROR_CATALOGUE, type ErrorCode } from './core/errors.js';
export { createLogger, type Logger } from './observe/logger.js';
