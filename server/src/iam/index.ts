/** Public names of the IAM layer. */
export { CREDENTIALS_FILE, generateCredentials, loadOrCreateRootCredentials } from './root-credentials.js';
export type { RootCredentials } from './root-credentials.js';
export { MAX_POLICY_BYTES, parseIdentityPolicy, parsePolicy } from './policy/parse-policy.js';
export { evaluatePolicy, isPublicPolicy } from './policy/evaluate-policy.js';
export { MalformedPolicyError } from './policy/policy-errors.js';
export { CANNED_POLICY_NAMES, isCannedPolicy } from './policy/canned-policies.js';
export type { CannedPolicyName } from './policy/canned-policies.js';
export type {
  BucketPolicy, ConditionKey, PolicyDecision, PolicyRequest, PolicyStatement,
} from './policy/policy-types.js';
export { IamStore } from './store/iam-store.js';
export type { IamLogger, IamRoot, IamStoreOptions, IdentityAuthority } from './store/iam-store.js';
export type { AddServiceAccountOptions, AddUserOptions, CreatedServiceAccount } from './store/iam-admin.js';
export { IAM_BUCKET, objectLayerPersistence } from './store/iam-persistence.js';
export type { IamPersistence } from './store/iam-persistence.js';
export type { IamChange, IamRecordKind } from './store/iam-codec.js';
export type { IdentityRequest } from './store/iam-snapshot.js';
export { IAM_ERROR_CODES, IamError } from './store/iam-errors.js';
export type { IamErrorCode } from './store/iam-errors.js';
export type { AccountStatus, GroupInfo, PolicyInfo, ServiceAccountInfo, UserInfo } from './store/iam-model.js';
