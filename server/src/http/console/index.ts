/** Public names of the console listener. */
export { consolePlugin, CONTENT_SECURITY_POLICY } from './plugin.js';
export type { ConsolePluginOptions } from './plugin.js';
export { COOKIE_PATH, SESSION_COOKIE } from './console-context.js';
export type { ConsoleServices, SessionView } from './console-context.js';
export { CONSOLE_ERRORS, ConsoleError } from './console-error.js';
export type { ConsoleErrorCode } from './console-error.js';
export { deriveConsoleKeys } from './console-keys.js';
export type { ConsoleKeys } from './console-keys.js';
export { issueSession, verifySession, secretFingerprint } from './session.js';
export type { NewSession, Session, SessionKind } from './session.js';
export { consoleSettingsFromEnv } from './oidc-settings.js';
export type { ConsoleEnvSettings, OidcSettings } from './oidc-settings.js';
export { DEFAULT_TRUSTED_PROXIES } from './request-origin.js';
export { LoginLimiter } from './login-limiter.js';
export type { LoginLimiterOptions } from './login-limiter.js';
