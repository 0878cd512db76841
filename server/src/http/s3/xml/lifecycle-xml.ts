import { xmlDocument, type XmlObject } from '../../shared/index.js';
import type { LifecycleConfig, LifecycleFilter, LifecycleRule, ObjectTag } from '../../../storage/index.js';
import { S3Error } from '../s3-error.js';
import { elementsOf, parseXmlBody, textOf, type XmlNode } from './parse.js';
import { S3_XMLNS } from './responses.js';
import { parseIsoDate } from './object-lock-xml.js';

/**
 * The LifecycleConfiguration body of Put/GetBucketLifecycleConfiguration
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketLifecycleConfiguration.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html), validated as AWS validates it:
 * structure errors are MalformedXML, bad values InvalidArgument, impossible combinations InvalidRequest.
 */

/** AWS accepts up to 1000 rules per configuration. */
export const MAX_LIFECYCLE_RULES = 1000;
const MAX_ID_LENGTH = 255;
const DAY_MS = 86_400_000;

type Element = Exclude<XmlNode, string>;

function malformed(message: string): S3Error {
  return new S3Error('MalformedXML', { message });
}

function invalidArgument(message: string, name: string, value: string): S3Error {
  return new S3Error('InvalidArgument', { message, extra: { ArgumentName: name, ArgumentValue: value } });
}

function child(node: Element, name: string): Element | undefined {
  const v = node[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw malformed(`${name} may appear only once.`);
  if (v === '') return {};
  if (typeof v === 'string') {
    if (v.trim() === '') return {};
    throw malformed(`${name} must contain elements.`);
  }
  return v;
}

function integer(raw: string, name: string): number {
  const t = raw.trim();
  if (!/^-?\d{1,15}$/.test(t)) throw malformed(`${name} must be an integer.`);
  return Number(t);
}

function positive(raw: string, name: string, message: string): number {
  const n = integer(raw, name);
  if (n <= 0) throw invalidArgument(message, name, raw);
  return n;
}

function tagOf(t: Element): ObjectTag {
  const key = textOf(t, 'Key');
  const value = textOf(t, 'Value');
  if (key === undefined || value === undefined) throw malformed('Each Tag must have a Key and a Value.');
  return { key, value };
}

function sizeBound(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = integer(raw, name);
  if (n < 0) throw invalidArgument(`${name} must be a non-negative integer.`, name, raw);
  return n;
}

function predicates(node: Element): LifecycleFilter {
  const filter: LifecycleFilter = {};
  const prefix = textOf(node, 'Prefix');
  if (prefix !== undefined) filter.prefix = prefix;
  const tags = elementsOf(node, 'Tag').map(tagOf);
  if (tags.length > 0) filter.tags = tags;
  const gt = sizeBound(textOf(node, 'ObjectSizeGreaterThan'), 'ObjectSizeGreaterThan');
  if (gt !== undefined) filter.sizeGreaterThan = gt;
  const lt = sizeBound(textOf(node, 'ObjectSizeLessThan'), 'ObjectSizeLessThan');
  if (lt !== undefined) filter.sizeLessThan = lt;
  if (gt !== undefined && lt !== undefined && gt >= lt) {
    throw invalidArgument('ObjectSizeGreaterThan must be less than ObjectSizeLessThan.', 'ObjectSizeGreaterThan', String(gt));
  }
  if (new Set(tags.map((t) => t.key)).size !== tags.length) throw new S3Error('InvalidRequest', { message: 'Duplicate Tag Keys are not allowed.' });
  return filter;
}

function predicateCount(node: Element): number {
  return ['Prefix', 'Tag', 'ObjectSizeGreaterThan', 'ObjectSizeLessThan', 'And'].reduce((n, name) => {
    const v = node[name];
    return n + (v === undefined ? 0 : Array.isArray(v) ? v.length : 1);
  }, 0);
}

/** A `<Filter>`: empty (every object), exactly one predicate, or an `<And>` of several. */
function decodeFilter(node: Element): LifecycleFilter {
  const count = predicateCount(node);
  if (count === 0) return {};
  if (count > 1) throw malformed('Filter must have exactly one of Prefix, Tag, ObjectSizeGreaterThan, ObjectSizeLessThan or And.');
  const and = child(node, 'And');
  if (and === undefined) return predicates(node);
  if (predicateCount(and) < 1 || and['And'] !== undefined) throw malformed('And must combine Prefix, Tag and size predicates.');
  return predicates(and);
}

function decodeExpiration(node: Element): NonNullable<LifecycleRule['expiration']> {
  const days = textOf(node, 'Days');
  const date = textOf(node, 'Date');
  const marker = textOf(node, 'ExpiredObjectDeleteMarker');
  const given = [days, date, marker].filter((v) => v !== undefined).length;
  if (given !== 1) throw malformed('Expiration must have exactly one of Days, Date or ExpiredObjectDeleteMarker.');
  if (days !== undefined) return { days: positive(days, 'Days', '\'Days\' for Expiration action must be a positive integer') };
  if (date !== undefined) {
    const d = parseIsoDate(date) ?? (/^\d{4}-\d{2}-\d{2}$/.test(date.trim()) ? new Date(`${date.trim()}T00:00:00Z`) : undefined);
    if (d === undefined || Number.isNaN(d.getTime())) throw malformed('Date must be an ISO 8601 date.');
    if (d.getTime() % DAY_MS !== 0) throw invalidArgument('\'Date\' must be at midnight GMT', 'Date', date);
    return { date: d.getTime() };
  }
  const m = marker!.trim().toLowerCase();
  if (m !== 'true' && m !== 'false') throw malformed('ExpiredObjectDeleteMarker must be true or false.');
  return { expiredObjectDeleteMarker: m === 'true' };
}

function decodeNoncurrent(node: Element): NonNullable<LifecycleRule['noncurrentVersionExpiration']> {
  const days = textOf(node, 'NoncurrentDays');
  const newer = textOf(node, 'NewerNoncurrentVersions');
  if (days === undefined && newer === undefined) throw malformed('NoncurrentVersionExpiration must have NoncurrentDays or NewerNoncurrentVersions.');
  const out: NonNullable<LifecycleRule['noncurrentVersionExpiration']> = {};
  if (days !== undefined) out.noncurrentDays = positive(days, 'NoncurrentDays', '\'NoncurrentDays\' for NoncurrentVersionExpiration action must be a positive integer');
  if (newer !== undefined) {
    const n = integer(newer, 'NewerNoncurrentVersions');
    if (n < 1 || n > 100) throw invalidArgument('\'NewerNoncurrentVersions\' must be an integer between 1 and 100', 'NewerNoncurrentVersions', newer);
    out.newerNoncurrentVersions = n;
  }
  return out;
}

function decodeRule(r: Element): LifecycleRule {
  for (const name of ['Transition', 'NoncurrentVersionTransition']) {
    if (r[name] !== undefined) throw new S3Error('NotImplemented', { message: `${name} is not implemented by this server: it has a single storage class.` });
  }
  const id = textOf(r, 'ID');
  if (id !== undefined && id.length > MAX_ID_LENGTH) throw invalidArgument('ID length should not exceed allowed limit of 255', 'ID', id);
  const status = textOf(r, 'Status');
  if (status !== 'Enabled' && status !== 'Disabled') throw malformed('Status must be Enabled or Disabled.');
  const filterNode = child(r, 'Filter');
  const legacy = textOf(r, 'Prefix');
  if (filterNode !== undefined && legacy !== undefined) throw malformed('A rule may have a Filter or a Prefix, not both.');
  if (filterNode === undefined && legacy === undefined) throw malformed('A rule must have a Filter or a Prefix.');
  const filter = filterNode !== undefined ? decodeFilter(filterNode) : { prefix: legacy! };
  const rule: LifecycleRule = { enabled: status === 'Enabled', filter, ...(id !== undefined ? { id } : {}), ...(legacy !== undefined ? { legacyPrefix: true } : {}) };
  const exp = child(r, 'Expiration');
  if (exp !== undefined) rule.expiration = decodeExpiration(exp);
  const nc = child(r, 'NoncurrentVersionExpiration');
  if (nc !== undefined) rule.noncurrentVersionExpiration = decodeNoncurrent(nc);
  const abort = child(r, 'AbortIncompleteMultipartUpload');
  if (abort !== undefined) {
    const raw = textOf(abort, 'DaysAfterInitiation');
    if (raw === undefined) throw malformed('AbortIncompleteMultipartUpload must have DaysAfterInitiation.');
    rule.abortIncompleteMultipartUpload = {
      daysAfterInitiation: positive(raw, 'DaysAfterInitiation', '\'DaysAfterInitiation\' for AbortIncompleteMultipartUpload action must be a positive integer'),
    };
  }
  if (rule.expiration === undefined && rule.noncurrentVersionExpiration === undefined && rule.abortIncompleteMultipartUpload === undefined) {
    throw new S3Error('InvalidRequest', { message: 'At least one action needs to be specified in a rule' });
  }
  const objectFilter = (filter.tags?.length ?? 0) > 0 || filter.sizeGreaterThan !== undefined || filter.sizeLessThan !== undefined;
  // Uploads and delete markers have no tags or size: AWS refuses these combinations.
  if (objectFilter && rule.abortIncompleteMultipartUpload !== undefined) {
    throw new S3Error('InvalidRequest', { message: 'AbortIncompleteMultipartUpload cannot be specified with Tags or object size filters.' });
  }
  if (objectFilter && rule.expiration?.expiredObjectDeleteMarker === true) {
    throw new S3Error('InvalidRequest', { message: 'ExpiredObjectDeleteMarker cannot be specified with Tags or object size filters.' });
  }
  return rule;
}

/** Decodes and validates a `<LifecycleConfiguration>` body. */
export function decodeLifecycleConfiguration(body: Buffer): LifecycleConfig {
  const root = parseXmlBody(body, 'LifecycleConfiguration');
  const rules = elementsOf(root, 'Rule').map(decodeRule);
  if (rules.length === 0 || rules.length > MAX_LIFECYCLE_RULES) {
    throw malformed(`A lifecycle configuration must have between 1 and ${MAX_LIFECYCLE_RULES} rules.`);
  }
  const ids = rules.flatMap((r) => (r.id === undefined ? [] : [r.id]));
  if (new Set(ids).size !== ids.length) {
    throw new S3Error('InvalidArgument', { message: 'Rule ID must be unique. Found same ID for more than one rule', extra: { ArgumentName: 'ID' } });
  }
  return { rules };
}

function encodeFilter(f: LifecycleFilter): XmlObject {
  const preds: XmlObject = {
    Prefix: f.prefix,
    Tag: f.tags?.map((t) => ({ Key: t.key, Value: t.value })),
    ObjectSizeGreaterThan: f.sizeGreaterThan,
    ObjectSizeLessThan: f.sizeLessThan,
  };
  const count = (f.prefix !== undefined ? 1 : 0) + (f.tags?.length ?? 0) + (f.sizeGreaterThan !== undefined ? 1 : 0) + (f.sizeLessThan !== undefined ? 1 : 0);
  return count > 1 ? { And: preds } : preds;
}

/** LifecycleConfiguration (GetBucketLifecycleConfiguration). */
export function encodeLifecycleConfiguration(config: LifecycleConfig): string {
  return xmlDocument('LifecycleConfiguration', {
    Rule: config.rules.map((r): XmlObject => ({
      ID: r.id,
      ...(r.legacyPrefix === true ? { Prefix: r.filter.prefix ?? '' } : { Filter: encodeFilter(r.filter) }),
      Status: r.enabled ? 'Enabled' : 'Disabled',
      Expiration: r.expiration === undefined ? undefined : {
        Days: r.expiration.days,
        Date: r.expiration.date === undefined ? undefined : new Date(r.expiration.date),
        ExpiredObjectDeleteMarker: r.expiration.expiredObjectDeleteMarker,
      },
      NoncurrentVersionExpiration: r.noncurrentVersionExpiration === undefined ? undefined : {
        NoncurrentDays: r.noncurrentVersionExpiration.noncurrentDays,
        NewerNoncurrentVersions: r.noncurrentVersionExpiration.newerNoncurrentVersions,
      },
      AbortIncompleteMultipartUpload: r.abortIncompleteMultipartUpload === undefined ? undefined : {
        DaysAfterInitiation: r.abortIncompleteMultipartUpload.daysAfterInitiation,
      },
    })),
  }, S3_XMLNS);
}
