export { SPEC_FILE_NAME, PROXIES, TLS_MODES } from './schema.js';
export type {
  DeploymentSpec,
  Problem,
  ParseSpecResult,
  ProxyKind,
  TlsMode,
  TlsSpec,
  AcmeTls,
  AcmeSettings,
  PemTls,
  ClusterSpec,
  HealthCheckSpec,
} from './schema.js';
export {
  LETSENCRYPT_PRODUCTION,
  LETSENCRYPT_STAGING,
  DEFAULT_PEM_FILE,
  DEFAULT_SERVER_IMAGE,
  DEFAULT_PROXY_IMAGES,
  DEFAULT_HEALTH_CHECK,
  LIMITS,
} from './defaults.js';
export { checkHostname, checkEmail, checkDirectoryUrl, checkImageRef, checkRelativePath, checkPemInFolder, maxParity } from './rules.js';
export type { RuleFailure } from './rules.js';
export { parseSpec } from './parse-spec.js';
export { buildSpec, formatSpec } from './build-spec.js';
export type { SpecAnswers } from './build-spec.js';
