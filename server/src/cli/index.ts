/** Public names of the `rc` client (used by server/bin/rc.js). */
export { runRc, exitCodeOf } from './rc/main.js';
export { EXIT } from './rc/errors.js';
export type { RcIo } from './rc/io.js';
