import { CONDITION_KEYS, CONDITION_OPERATORS } from './policy-types.js';
import type {
  BucketPolicy, ConditionKey, ConditionOperator, PolicyCondition, PolicyEffect, PolicyPrincipal, PolicyStatement,
} from './policy-types.js';
import { MalformedPolicyError } from './policy-errors.js';
import { iamWildcardMatch, parseCidr } from './match.js';
import { S3_ACTIONS } from './s3-actions.js';

/**
 * Parses and validates a bucket policy document, pure. Refusals carry the messages S3 answers with
 * MalformedPolicy (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-policies.html): not JSON,
 * unknown elements, missing required fields, invalid actions, resources outside the bucket, unknown
 * condition operators or keys.
 */

/** AWS: "Bucket policies are limited to 20 KB in size." */
export const MAX_POLICY_BYTES = 20 * 1024;

/** Policy language versions (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_version.html). */
export const POLICY_VERSIONS = ['2012-10-17', '2008-10-17'] as const;

const TOP_LEVEL = new Set(['Version', 'Id', 'Statement']);
const STATEMENT_FIELDS = new Set(['Sid', 'Effect', 'Principal', 'NotPrincipal', 'Action', 'NotAction', 'Resource', 'NotResource', 'Condition']);
const PRINCIPAL_TYPES = new Set(['AWS', 'CanonicalUser', 'Service', 'Federated']);

function fail(message: string): never {
  throw new MalformedPolicyError(message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string or a non-empty list of strings, as a list. */
function stringList(v: unknown, field: string): string[] {
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0 || !list.every((x): x is string => typeof x === 'string' && x !== '')) {
    fail(`${field} must be a non-empty string or a non-empty list of strings`);
  }
  return list;
}

function checkFields(o: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  for (const k of Object.keys(o)) if (!allowed.has(k)) fail(`Unknown field ${k}`);
}

function parsePrincipal(v: unknown): PolicyPrincipal {
  if (v === '*') return { kind: 'any' };
  if (!isObject(v) || Object.keys(v).length === 0) fail('Invalid principal in policy');
  const values: Record<string, string[]> = {};
  for (const [type, raw] of Object.entries(v)) {
    if (!PRINCIPAL_TYPES.has(type)) fail('Invalid principal in policy');
    values[type] = stringList(raw, `Principal ${type}`);
  }
  // {"AWS": "*"} is the same as "*" (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html#principal-anonymous).
  if (values['AWS']?.includes('*') === true) return { kind: 'any' };
  return { kind: 'named', values };
}

function checkAction(action: string, kind: PolicyKind): void {
  if (action === '*') return;
  // Identity policies may also grant MinIO's admin and KMS actions (issue 5: admin:ServerInfo, admin:CreateUser…);
  // their names are checked by the admin API that evaluates them.
  if (kind === 'identity' && /^(admin|kms):[A-Za-z*?]+$/.test(action)) return;
  if (!/^s3:[A-Za-z*?]+$/i.test(action)) fail('Policy has invalid action');
  // A wildcard action must name at least one real action, as on AWS.
  if (!S3_ACTIONS.some((known) => iamWildcardMatch(action, known, true))) fail('Policy has invalid action');
}

/**
 * Resources must be in this bucket: `arn:aws:s3:::<bucket>` or `arn:aws:s3:::<bucket>/<key pattern>`,
 * where the bucket part may itself be a wildcard matching the bucket (AWS: "Policy has invalid resource").
 */
function checkResource(resource: string, bucket: string | undefined): void {
  if (resource === '*') return;
  const prefix = 'arn:aws:s3:::';
  if (!resource.startsWith(prefix)) fail('Policy has invalid resource');
  // An identity policy is not attached to a bucket: any S3 resource may be named.
  if (bucket === undefined) {
    if (resource === prefix) fail('Policy has invalid resource');
    return;
  }
  const rest = resource.slice(prefix.length);
  const slash = rest.indexOf('/');
  const bucketPart = slash === -1 ? rest : rest.slice(0, slash);
  if (bucketPart === '' || !iamWildcardMatch(bucketPart, bucket)) fail('Policy has invalid resource');
}

function isOperator(v: string): v is ConditionOperator {
  return (CONDITION_OPERATORS as readonly string[]).includes(v);
}
function isKey(v: string): v is ConditionKey {
  return (CONDITION_KEYS as readonly string[]).includes(v);
}

function parseConditions(v: unknown): PolicyCondition[] {
  if (v === undefined) return [];
  if (!isObject(v)) fail('Condition must be an object');
  const out: PolicyCondition[] = [];
  for (const [operator, tests] of Object.entries(v)) {
    if (!isOperator(operator)) fail(`Invalid Condition type : ${operator}`);
    if (!isObject(tests) || Object.keys(tests).length === 0) fail(`Condition ${operator} must map keys to values`);
    for (const [rawKey, rawValues] of Object.entries(tests)) {
      // Condition keys are case-insensitive (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition.html).
      const key = rawKey.toLowerCase();
      if (!isKey(key)) fail(`Policy has an invalid condition key: ${rawKey}`);
      const list = Array.isArray(rawValues) ? rawValues : [rawValues];
      if (list.length === 0) fail(`Condition ${operator} ${rawKey} has no value`);
      const values = list.map((x) => {
        if (typeof x === 'string') return x;
        if (typeof x === 'boolean' || typeof x === 'number') return String(x);
        return fail(`Condition ${operator} ${rawKey} values must be strings`);
      });
      if (operator === 'IpAddress' || operator === 'NotIpAddress') {
        if (key !== 'aws:sourceip') fail(`Condition ${operator} applies to aws:SourceIp only`);
        for (const ip of values) if (parseCidr(ip) === undefined) fail(`Invalid IP address or CIDR block in condition: ${ip}`);
      }
      if (operator === 'Bool' && !values.every((x) => x === 'true' || x === 'false')) fail(`Condition Bool ${rawKey} values must be true or false`);
      out.push({ operator, key, values });
    }
  }
  return out;
}

/**
 * What a document is: a bucket policy (Principal required, resources in `bucket`) or an identity policy attached
 * to users (https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_identity-vs-resource.html): no
 * Principal, any S3 resource, and MinIO's admin/kms actions.
 */
type PolicyKind = 'bucket' | 'identity';

const ANY_PRINCIPAL: PolicyPrincipal = { kind: 'any' };

function parseStatement(v: unknown, bucket: string | undefined): PolicyStatement {
  const kind: PolicyKind = bucket === undefined ? 'identity' : 'bucket';
  if (!isObject(v)) fail('Statement must be an object or a list of objects');
  checkFields(v, STATEMENT_FIELDS);
  if (v['Sid'] !== undefined && typeof v['Sid'] !== 'string') fail('Sid must be a string');
  if (v['Effect'] === undefined) fail('Missing required field Effect');
  if (v['Effect'] !== 'Allow' && v['Effect'] !== 'Deny') fail('Invalid effect: Effect must be Allow or Deny');
  const effect: PolicyEffect = v['Effect'];
  const one = (a: string, b: string): 'a' | 'b' => {
    if (v[a] !== undefined && v[b] !== undefined) fail(`A statement may have ${a} or ${b}, not both`);
    if (v[a] === undefined && v[b] === undefined) fail(`Missing required field ${a}`);
    return v[a] !== undefined ? 'a' : 'b';
  };
  if (kind === 'identity' && (v['Principal'] !== undefined || v['NotPrincipal'] !== undefined)) {
    fail('Policy document should not specify a principal.');
  }
  // An identity policy applies to whoever it is attached to: its statements match every principal.
  const principalField = kind === 'identity' ? 'a' : one('Principal', 'NotPrincipal');
  const actionField = one('Action', 'NotAction');
  const principal = kind === 'identity' ? ANY_PRINCIPAL : parsePrincipal(principalField === 'a' ? v['Principal'] : v['NotPrincipal']);
  const actions = stringList(actionField === 'a' ? v['Action'] : v['NotAction'], 'Action');
  for (const a of actions) checkAction(a, kind);
  // MinIO's built-in consoleAdmin grants admin:* and kms:* without a Resource: allowed for such statements only.
  const resourceless = kind === 'identity' && actionField === 'a' && v['Resource'] === undefined && v['NotResource'] === undefined
    && actions.every((a) => /^(admin|kms):/.test(a));
  const resourceField = resourceless ? 'a' : one('Resource', 'NotResource');
  const resources = resourceless ? ['*'] : stringList(resourceField === 'a' ? v['Resource'] : v['NotResource'], 'Resource');
  for (const r of resources) checkResource(r, bucket);
  return {
    ...(typeof v['Sid'] === 'string' ? { sid: v['Sid'] } : {}),
    effect,
    ...(principalField === 'a' ? { principal } : { notPrincipal: principal }),
    ...(actionField === 'a' ? { actions } : { notActions: actions }),
    ...(resourceField === 'a' ? { resources } : { notResources: resources }),
    conditions: parseConditions(v['Condition']),
  };
}

/** Parses the policy `text` for `bucket`; MalformedPolicyError on anything S3 would refuse. */
export function parsePolicy(text: string, bucket: string): BucketPolicy {
  return parseDocument(text, bucket);
}

/**
 * Parses an identity policy (attached to users and service accounts, MinIO's `mc admin policy create`):
 * MalformedPolicyError when it names a Principal, a resource that is not S3, or anything parsePolicy refuses.
 * Its statements carry Principal "*", so evaluatePolicy applies them to whoever they are attached to.
 */
export function parseIdentityPolicy(text: string): BucketPolicy {
  return parseDocument(text, undefined);
}

function parseDocument(text: string, bucket: string | undefined): BucketPolicy {
  if (Buffer.byteLength(text, 'utf8') > MAX_POLICY_BYTES) fail(`Policies must not exceed ${MAX_POLICY_BYTES} bytes`);
  if (!text.trimStart().startsWith('{')) fail("Policies must be valid JSON and the first byte must be '{'");
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    fail("Policies must be valid JSON and the first byte must be '{'");
  }
  if (!isObject(doc)) fail("Policies must be valid JSON and the first byte must be '{'");
  checkFields(doc, TOP_LEVEL);
  const version = doc['Version'];
  if (typeof version !== 'string' || !(POLICY_VERSIONS as readonly string[]).includes(version)) {
    fail('The policy must contain a valid version string');
  }
  if (doc['Id'] !== undefined && typeof doc['Id'] !== 'string') fail('Id must be a string');
  const raw = doc['Statement'];
  if (raw === undefined) fail('Missing required field Statement');
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) fail('Could not parse the policy: Statement is empty!');
  const statements = list.map((s) => parseStatement(s, bucket));
  return { version, ...(typeof doc['Id'] === 'string' ? { id: doc['Id'] } : {}), statements };
}
