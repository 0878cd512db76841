/** Public names of the config layer. */
export { ConfigError } from './config-error.js';
export { ConfigErrors, isEndpointUrl, loadConfig, parseAddress, parseBool } from './load.js';
export type { ServerFlags } from './load.js';
export { expandEllipsis, hasEllipsis } from './ellipsis.js';
export { chooseSetSize, layoutPool, parseParity } from './erasure-layout.js';
export type { PoolLayout } from './erasure-layout.js';
export { DEFAULTS } from './schema.js';
export type { ListenAddress, ServerConfig } from './schema.js';
