import type { BucketPolicy, PolicyCondition, PolicyDecision, PolicyPrincipal, PolicyRequest, PolicyStatement } from './policy-types.js';
import { iamWildcardMatch, ipInCidr, parseCidr } from './match.js';

/**
 * Bucket policy evaluation, pure (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
 * a statement applies when its principal, action, resource and every condition match; any applying Deny
 * decides `deny`, else any applying Allow decides `allow`, else the request is implicitly denied.
 */

function principalMatches(p: PolicyPrincipal, request: PolicyRequest): boolean {
  if (p.kind === 'any') return true;
  if (request.principal.anonymous) return false;
  const key = request.principal.accessKey;
  // Without IAM users the only named principal a request can be is its access key (or an ARN ending in it).
  return (p.values['AWS'] ?? []).some((v) => v === key || v.endsWith(`:user/${key}`));
}

function statementPrincipal(s: PolicyStatement, request: PolicyRequest): boolean {
  if (s.principal !== undefined) return principalMatches(s.principal, request);
  return s.notPrincipal !== undefined && !principalMatches(s.notPrincipal, request);
}

function statementAction(s: PolicyStatement, action: string): boolean {
  // Action names are case-insensitive (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_action.html).
  if (s.actions !== undefined) return s.actions.some((a) => iamWildcardMatch(a, action, true));
  return s.notActions !== undefined && !s.notActions.some((a) => iamWildcardMatch(a, action, true));
}

function statementResource(s: PolicyStatement, resource: string): boolean {
  if (s.resources !== undefined) return s.resources.some((r) => iamWildcardMatch(r, resource));
  return s.notResources !== undefined && !s.notResources.some((r) => iamWildcardMatch(r, resource));
}

/**
 * One condition. Values of a key are ORed. A key absent from the request makes positive operators false
 * and negated operators (`…Not…`, NotIpAddress) true, as IAM does.
 */
export function conditionHolds(c: PolicyCondition, context: PolicyRequest['context']): boolean {
  const actual = context[c.key];
  switch (c.operator) {
    case 'StringEquals': return actual !== undefined && c.values.includes(actual);
    case 'StringNotEquals': return actual === undefined || !c.values.includes(actual);
    case 'StringEqualsIgnoreCase': return actual !== undefined && c.values.some((v) => v.toLowerCase() === actual.toLowerCase());
    case 'StringNotEqualsIgnoreCase': return actual === undefined || !c.values.some((v) => v.toLowerCase() === actual.toLowerCase());
    case 'StringLike': return actual !== undefined && c.values.some((v) => iamWildcardMatch(v, actual));
    case 'StringNotLike': return actual === undefined || !c.values.some((v) => iamWildcardMatch(v, actual));
    case 'IpAddress': return actual !== undefined && c.values.some((v) => inBlock(actual, v));
    case 'NotIpAddress': return actual === undefined || !c.values.some((v) => inBlock(actual, v));
    case 'Bool': return actual !== undefined && c.values.includes(actual.toLowerCase());
    default: return c.operator satisfies never;
  }
}

function inBlock(ip: string, cidr: string): boolean {
  const block = parseCidr(cidr);
  return block !== undefined && ipInCidr(ip, block);
}

/** True when `s` applies to `request`. */
export function statementApplies(s: PolicyStatement, request: PolicyRequest): boolean {
  return statementPrincipal(s, request)
    && statementAction(s, request.action)
    && statementResource(s, request.resource)
    && s.conditions.every((c) => conditionHolds(c, request.context));
}

/** The decision of `policy` for `request`: explicit Deny wins, then Allow, else implicit deny. */
export function evaluatePolicy(policy: BucketPolicy, request: PolicyRequest): PolicyDecision {
  let allowed = false;
  for (const s of policy.statements) {
    if (!statementApplies(s, request)) continue;
    if (s.effect === 'Deny') return 'deny';
    allowed = true;
  }
  return allowed ? 'allow' : 'implicit-deny';
}

/**
 * GetBucketPolicyStatus's IsPublic (https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html#access-control-block-public-access-policy-status):
 * an Allow for every principal that is not narrowed to fixed source addresses.
 */
export function isPublicPolicy(policy: BucketPolicy): boolean {
  return policy.statements.some((s) => s.effect === 'Allow'
    && (s.principal?.kind === 'any' || s.notPrincipal !== undefined)
    && !s.conditions.some((c) => c.operator === 'IpAddress'));
}
