/** Public names of the kernel layer (STYLE.md convention 15: explicit list, no `export *`). */
export { ServerError, isServerError } from './errors.js';
