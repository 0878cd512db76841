/** Public names of the admin API layer (STYLE.md convention 15). */
export { adminPlugin, MAX_ADMIN_BODY } from './plugin.js';
export type { AdminPluginOptions } from './plugin.js';
export { ADMIN_PREFIX } from './router.js';
export { ADMIN_ERRORS, AdminError } from './admin-error.js';
export type { AdminErrorCode } from './admin-error.js';
export { INFO_REPORT_VERSION, assembleInfoReport, countContents } from './info.js';
export type { ClusterStatus, InfoReport, PoolReport } from './info.js';
