/**
 * The parsed form of an S3 bucket policy (IAM policy grammar:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_grammar.html). Every list is
 * non-empty unless stated; single values of the JSON are normalized to one-element lists.
 */

/** Statement effect. */
export type PolicyEffect = 'Allow' | 'Deny';

/** Who a statement is about: everyone (`"*"` or `{"AWS": "*"}`), or named principals by type. */
export type PolicyPrincipal =
  | { readonly kind: 'any' }
  | { readonly kind: 'named'; readonly values: Readonly<Record<string, readonly string[]>> };

/** Condition operators this server evaluates (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html). */
export const CONDITION_OPERATORS = [
  'StringEquals', 'StringNotEquals', 'StringEqualsIgnoreCase', 'StringNotEqualsIgnoreCase', 'StringLike', 'StringNotLike',
  'IpAddress', 'NotIpAddress', 'Bool',
] as const;

/** A condition operator this server evaluates. */
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** Condition keys this server can supply for a request (lowercased, as keys are case-insensitive). */
export const CONDITION_KEYS = [
  'aws:sourceip', 'aws:securetransport', 'aws:referer', 'aws:useragent', 's3:prefix', 's3:delimiter', 's3:max-keys',
] as const;

/** A condition key this server can supply. */
export type ConditionKey = (typeof CONDITION_KEYS)[number];

/** One `"Operator": { "key": [values] }` test; every condition of a statement must hold. */
export interface PolicyCondition {
  readonly operator: ConditionOperator;
  readonly key: ConditionKey;
  readonly values: readonly string[];
}

/** One statement. Exactly one of principal/notPrincipal, actions/notActions, resources/notResources is set. */
export interface PolicyStatement {
  readonly sid?: string;
  readonly effect: PolicyEffect;
  readonly principal?: PolicyPrincipal;
  readonly notPrincipal?: PolicyPrincipal;
  readonly actions?: readonly string[];
  readonly notActions?: readonly string[];
  readonly resources?: readonly string[];
  readonly notResources?: readonly string[];
  readonly conditions: readonly PolicyCondition[];
}

/** A validated bucket policy. */
export interface BucketPolicy {
  readonly version: string;
  readonly id?: string;
  readonly statements: readonly PolicyStatement[];
}

/** The request a policy is evaluated for. */
export interface PolicyRequest {
  /** `anonymous` for unsigned requests, else the access key that signed the request. */
  readonly principal: { readonly anonymous: true } | { readonly anonymous: false; readonly accessKey: string };
  /** `s3:GetObject`, `s3:ListBucket`… */
  readonly action: string;
  /** `arn:aws:s3:::bucket` or `arn:aws:s3:::bucket/key`. */
  readonly resource: string;
  /** Values of the condition keys present in the request; an absent key is absent from the map. */
  readonly context: Readonly<Partial<Record<ConditionKey, string>>>;
}

/** Outcome: an explicit Deny wins over any Allow; with neither, access is implicitly denied. */
export type PolicyDecision = 'allow' | 'deny' | 'implicit-deny';
