import { S3Error } from '../s3-error.js';

/**
 * The POST policy document of browser-based uploads
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html): an expiration and a list of
 * conditions every form field must satisfy. Condition forms: `{"field": "value"}` (exact match), `["eq", "$field",
 * "value"]`, `["starts-with", "$field", "prefix"]` and `["content-length-range", min, max]`.
 */

/** One condition on a form field (names lower-cased, without `$`). */
export type PolicyCondition =
  | { kind: 'eq'; field: string; value: string; source: string }
  | { kind: 'starts-with'; field: string; value: string; source: string }
  | { kind: 'content-length-range'; min: number; max: number };

/** A decoded policy. */
export interface PostPolicy {
  expiration: Date;
  conditions: PolicyCondition[];
}

function invalid(message: string): S3Error {
  return new S3Error('InvalidPolicyDocument', { message: `Invalid Policy: ${message}` });
}

function lengthBound(v: unknown): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw invalid('Invalid content-length-range bounds.');
  return n;
}

function fieldName(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('$') || raw.length < 2) throw invalid(`Invalid condition field: ${JSON.stringify(raw)}.`);
  return raw.slice(1).toLowerCase();
}

/** Decodes the base64 `policy` field. Anything else than the documented shapes is InvalidPolicyDocument. */
export function decodePostPolicy(base64: string): PostPolicy {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch (cause) {
    throw new S3Error('InvalidPolicyDocument', { message: 'Invalid Policy: Invalid JSON.', cause });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalid('Invalid JSON.');
  const o = doc as Record<string, unknown>;
  if (typeof o.expiration !== 'string') throw invalid('Policy missing expiration.');
  const expiration = new Date(o.expiration);
  if (Number.isNaN(expiration.getTime())) throw invalid('Invalid \'expiration\' value.');
  if (!Array.isArray(o.conditions)) throw invalid('Policy missing conditions.');
  const conditions = o.conditions.map((c: unknown): PolicyCondition => {
    if (Array.isArray(c)) {
      const op = typeof c[0] === 'string' ? c[0].toLowerCase() : '';
      if (op === 'content-length-range') {
        if (c.length !== 3) throw invalid('Invalid content-length-range condition.');
        const min = lengthBound(c[1]);
        const max = lengthBound(c[2]);
        return { kind: 'content-length-range', min, max };
      }
      if ((op === 'eq' || op === 'starts-with') && c.length === 3 && typeof c[2] === 'string') {
        return { kind: op, field: fieldName(c[1]), value: c[2], source: `[${c.map((x) => JSON.stringify(x)).join(', ')}]` };
      }
      throw invalid(`Invalid condition: ${JSON.stringify(c)}.`);
    }
    if (typeof c === 'object' && c !== null) {
      const entries = Object.entries(c);
      const [name, value] = entries[0] ?? [];
      if (entries.length !== 1 || name === undefined || typeof value !== 'string') throw invalid(`Invalid condition: ${JSON.stringify(c)}.`);
      return { kind: 'eq', field: name.toLowerCase(), value, source: `["eq", "$${name}", ${JSON.stringify(value)}]` };
    }
    throw invalid(`Invalid condition: ${JSON.stringify(c)}.`);
  });
  return { expiration, conditions };
}

/** Fields a policy need not mention (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html). */
function exempt(name: string): boolean {
  return name === 'x-amz-signature' || name === 'file' || name === 'policy' || name.startsWith('x-ignore-');
}

function denied(detail: string): S3Error {
  return new S3Error('AccessDenied', { message: `Invalid according to Policy: ${detail}` });
}

/**
 * Checks the policy against the form: not expired, every eq / starts-with condition satisfied (`bucket` is the
 * request's bucket), and every form field covered by some condition. Failures are 403 AccessDenied with AWS's
 * "Invalid according to Policy: …" wording. Returns the content-length-range, if any, for the file stream.
 */
export function checkPostPolicy(
  policy: PostPolicy, fields: ReadonlyMap<string, string>, bucket: string, now: Date,
): { min: number; max: number } | undefined {
  if (policy.expiration.getTime() <= now.getTime()) throw denied('Policy expired.');
  const values = new Map(fields);
  values.set('bucket', bucket);
  const covered = new Set<string>(['bucket']);
  let range: { min: number; max: number } | undefined;
  for (const c of policy.conditions) {
    if (c.kind === 'content-length-range') {
      range = { min: c.min, max: c.max };
      continue;
    }
    covered.add(c.field);
    const actual = values.get(c.field) ?? '';
    const ok = c.kind === 'eq' ? actual === c.value : actual.startsWith(c.value);
    if (!ok) throw denied(`Policy Condition failed: ${c.source}`);
  }
  const extra = [...fields.keys()].filter((name) => !exempt(name) && !covered.has(name));
  if (extra.length > 0) throw denied(`Extra input fields: ${extra.join(', ')}`);
  return range;
}
