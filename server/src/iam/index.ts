/** Public names of the IAM layer. */
export { CREDENTIALS_FILE, generateCredentials, loadOrCreateRootCredentials } from './root-credentials.js';
export type { RootCredentials } from './root-credentials.js';
export { MAX_POLICY_BYTES, parsePolicy } from './policy/parse-policy.js';
export { evaluatePolicy, isPublicPolicy } from './policy/evaluate-policy.js';
export { MalformedPolicyError } from './policy/policy-errors.js';
export type {
  BucketPolicy, ConditionKey, PolicyDecision, PolicyRequest, PolicyStatement,
} from './policy/policy-types.js';
