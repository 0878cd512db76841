import { S3Error } from '../s3-error.js';

/**
 * Bucket CORS rules: validation and matching, pure. Behaviour follows
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html and
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html ("How does Amazon S3 evaluate the CORS
 * configuration on a bucket?"): the first rule whose origin, method and requested headers all match wins.
 */

/** Methods a CORS rule may allow (API_CORSRule: GET, PUT, HEAD, POST, DELETE). */
export const CORS_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'] as const;

/** A method a CORS rule may allow. */
export type CorsMethod = (typeof CORS_METHODS)[number];

/** One CORSRule, as stored (validated). */
export interface CorsRule {
  id?: string;
  allowedOrigins: string[];
  allowedMethods: CorsMethod[];
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

/** AWS: "You can add up to 100 rules to the configuration." */
export const MAX_CORS_RULES = 100;
/** AWS: a rule ID "cannot be longer than 255 characters". */
export const MAX_CORS_RULE_ID = 255;

function isCorsMethod(m: string): m is CorsMethod {
  return (CORS_METHODS as readonly string[]).includes(m);
}

function wildcards(s: string): number {
  return s.split('*').length - 1;
}

/**
 * Checks a decoded configuration with AWS's errors: no rule, more than 100 rules, or a rule without an
 * origin or a method → MalformedXML; an unknown method, an origin or header with more than one `*`, or a
 * `*` in an ExposeHeader → InvalidRequest (the messages AWS sends).
 */
export function validateCorsRules(rules: readonly CorsRule[]): void {
  if (rules.length === 0 || rules.length > MAX_CORS_RULES) {
    throw new S3Error('MalformedXML', { message: `A CORS configuration must have between 1 and ${MAX_CORS_RULES} CORSRule elements.` });
  }
  for (const rule of rules) {
    if (rule.allowedOrigins.length === 0 || rule.allowedMethods.length === 0) {
      throw new S3Error('MalformedXML', { message: 'Each CORSRule must have at least one AllowedOrigin and one AllowedMethod.' });
    }
    if (rule.id !== undefined && rule.id.length > MAX_CORS_RULE_ID) {
      throw new S3Error('InvalidArgument', { message: `ID length should not exceed allowed limit of ${MAX_CORS_RULE_ID}`, extra: { ArgumentName: 'ID' } });
    }
    for (const method of rule.allowedMethods) {
      if (!isCorsMethod(method)) {
        throw new S3Error('InvalidRequest', { message: `Found unsupported HTTP method in CORS config. Unsupported method is ${String(method)}` });
      }
    }
    for (const origin of rule.allowedOrigins) {
      if (wildcards(origin) > 1) throw new S3Error('InvalidRequest', { message: `AllowedOrigin "${origin}" can not have more than one wildcard.` });
    }
    for (const h of rule.allowedHeaders) {
      if (wildcards(h) > 1) throw new S3Error('InvalidRequest', { message: `AllowedHeader "${h}" can not have more than one wildcard.` });
    }
    for (const h of rule.exposeHeaders) {
      if (h.includes('*')) {
        throw new S3Error('InvalidRequest', { message: `ExposeHeader "${h}" contains wildcard. We currently do not support wildcard for ExposeHeader.` });
      }
    }
  }
}

/** `pattern` with at most one `*` (any run of characters, possibly empty) against `value`. */
export function wildcardMatch(pattern: string, value: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === value;
  const prefix = pattern.slice(0, star);
  const suffix = pattern.slice(star + 1);
  return value.length >= prefix.length + suffix.length && value.startsWith(prefix) && value.endsWith(suffix);
}

function originMatches(rule: CorsRule, origin: string): boolean {
  return rule.allowedOrigins.some((p) => wildcardMatch(p, origin));
}

// Header names are case-insensitive (RFC 9110 §5.1), so AllowedHeader patterns compare lowercased.
function headerAllowed(rule: CorsRule, name: string): boolean {
  return rule.allowedHeaders.some((p) => wildcardMatch(p.toLowerCase(), name));
}

/** What a browser asks in a preflight: Origin, Access-Control-Request-Method and -Headers (lowercased names). */
export interface PreflightQuery {
  origin: string;
  method: string;
  headers: readonly string[];
}

/** The first rule allowing the preflight, or undefined. */
export function matchPreflight(rules: readonly CorsRule[], q: PreflightQuery): CorsRule | undefined {
  return rules.find((r) =>
    originMatches(r, q.origin) && (r.allowedMethods as readonly string[]).includes(q.method) && q.headers.every((h) => headerAllowed(r, h)));
}

/** The first rule allowing an actual (non-preflight) request with this Origin and method, or undefined. */
export function matchActual(rules: readonly CorsRule[], origin: string, method: string): CorsRule | undefined {
  return rules.find((r) => originMatches(r, origin) && (r.allowedMethods as readonly string[]).includes(method));
}

/** Splits `Access-Control-Request-Headers` (comma-separated) into lowercased names. */
export function parseRequestHeaders(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
}

/**
 * Response headers for a request a rule allowed. An AllowedOrigin of exactly `*` answers `*` without
 * credentials; any other rule echoes the origin and allows credentials, as S3 does. `requestedHeaders`
 * (preflight only) are echoed in Access-Control-Allow-Headers.
 */
export function corsResponseHeaders(rule: CorsRule, origin: string, requestedHeaders?: readonly string[]): Record<string, string> {
  const anyOrigin = rule.allowedOrigins.includes('*') && !rule.allowedOrigins.some((p) => p !== '*' && wildcardMatch(p, origin));
  const out: Record<string, string> = {
    'access-control-allow-origin': anyOrigin ? '*' : origin,
    'access-control-allow-methods': rule.allowedMethods.join(', '),
  };
  if (!anyOrigin) out['access-control-allow-credentials'] = 'true';
  if (requestedHeaders !== undefined && requestedHeaders.length > 0) out['access-control-allow-headers'] = requestedHeaders.join(', ');
  if (rule.exposeHeaders.length > 0) out['access-control-expose-headers'] = rule.exposeHeaders.join(', ');
  if (rule.maxAgeSeconds !== undefined) out['access-control-max-age'] = String(rule.maxAgeSeconds);
  return out;
}
