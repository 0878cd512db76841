/** Public names of the IAM layer. */
export { CREDENTIALS_FILE, generateCredentials, loadOrCreateRootCredentials } from './root-credentials.js';
export type { RootCredentials } from './root-credentials.js';
