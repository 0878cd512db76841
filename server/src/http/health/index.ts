/** Public names of the health probes. */
export { healthPlugin } from './plugin.js';
export type { HealthPluginOptions, HealthSources } from './plugin.js';
export { evaluateProbe } from './readiness.js';
export type { DegradedReason, ProbeKind, ProbeKmsState, ProbeSnapshot, ProbeStorageState, ReadinessBody } from './readiness.js';
