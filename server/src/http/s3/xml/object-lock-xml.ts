import { xmlDocument } from '../../shared/index.js';
import type { RetentionMode } from '../../../storage/index.js';
import { S3Error } from '../s3-error.js';
import { parseXmlBody, textOf, type XmlNode } from './parse.js';
import { S3_XMLNS } from './responses.js';

/**
 * Object Lock request and response bodies: ObjectLockConfiguration
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLockConfiguration.html), Retention
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectRetention.html) and LegalHold
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLegalHold.html).
 */

/** A bucket's default retention: a mode and a period of days or years. */
export interface DefaultRetention {
  mode: RetentionMode;
  days?: number;
  years?: number;
}

/** A bucket's Object Lock configuration (always enabled once it exists). */
export interface BucketLockConfig {
  defaultRetention?: DefaultRetention;
}

// AWS caps default retention at 100 years (36500 days).
const MAX_DAYS = 36500;
const MAX_YEARS = 100;

function malformed(message: string): S3Error {
  return new S3Error('MalformedXML', { message });
}

function child(node: Exclude<XmlNode, string>, name: string): Exclude<XmlNode, string> | undefined {
  const v = node[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw malformed(`${name} may appear once.`);
  if (v === '') return {};
  if (typeof v === 'string') throw malformed(`${name} must contain elements.`);
  return v;
}

/** "GOVERNANCE" | "COMPLIANCE", or undefined for anything else. */
export function parseRetentionMode(raw: string | undefined): RetentionMode | undefined {
  return raw === 'GOVERNANCE' || raw === 'COMPLIANCE' ? raw : undefined;
}

function period(raw: string, name: 'Days' | 'Years'): number {
  const n = /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) throw malformed(`${name} must be an integer.`);
  if (n <= 0) throw new S3Error('InvalidArgument', { message: 'Default retention period must be a positive integer value.', extra: { ArgumentName: name, ArgumentValue: raw } });
  if (n > (name === 'Days' ? MAX_DAYS : MAX_YEARS)) {
    throw new S3Error('InvalidArgument', { message: 'Default retention period is too large.', extra: { ArgumentName: name, ArgumentValue: raw } });
  }
  return n;
}

/**
 * Decodes `<ObjectLockConfiguration>`: ObjectLockEnabled must be "Enabled"; a Rule needs a DefaultRetention with
 * a Mode and exactly one of Days or Years (MalformedXML otherwise); periods must be positive (InvalidArgument).
 */
export function decodeObjectLockConfiguration(body: Buffer): BucketLockConfig {
  const root = parseXmlBody(body, 'ObjectLockConfiguration');
  if (textOf(root, 'ObjectLockEnabled') !== 'Enabled') throw malformed('ObjectLockEnabled must be Enabled.');
  const rule = child(root, 'Rule');
  if (rule === undefined) return {};
  const dr = child(rule, 'DefaultRetention');
  if (dr === undefined) throw malformed('Rule must contain a DefaultRetention.');
  const mode = parseRetentionMode(textOf(dr, 'Mode'));
  if (mode === undefined) throw malformed('DefaultRetention Mode must be GOVERNANCE or COMPLIANCE.');
  const days = textOf(dr, 'Days');
  const years = textOf(dr, 'Years');
  if ((days === undefined) === (years === undefined)) throw malformed('DefaultRetention must have exactly one of Days or Years.');
  return { defaultRetention: days !== undefined ? { mode, days: period(days, 'Days') } : { mode, years: period(years!, 'Years') } };
}

/** ObjectLockConfiguration (GetObjectLockConfiguration). */
export function encodeObjectLockConfiguration(config: BucketLockConfig): string {
  const dr = config.defaultRetention;
  return xmlDocument('ObjectLockConfiguration', {
    ObjectLockEnabled: 'Enabled',
    Rule: dr === undefined ? undefined : { DefaultRetention: { Mode: dr.mode, Days: dr.days, Years: dr.years } },
  }, S3_XMLNS);
}

/** An ISO 8601 timestamp as S3 accepts it, or undefined when it is not one. */
export function parseIsoDate(raw: string): Date | undefined {
  const t = raw.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/.test(t)) return undefined;
  const d = new Date(t.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/**
 * Decodes `<Retention>`: Mode and RetainUntilDate together (both absent: remove the retention, which AWS allows
 * only with a governance bypass); an unknown mode or a bad date is MalformedXML.
 */
export function decodeRetention(body: Buffer): { mode: RetentionMode; retainUntil: Date } | undefined {
  const root = parseXmlBody(body, 'Retention');
  const rawMode = textOf(root, 'Mode');
  const rawDate = textOf(root, 'RetainUntilDate');
  if (rawMode === undefined && rawDate === undefined) return undefined;
  if (rawMode === undefined || rawDate === undefined) throw malformed('Retention must have both Mode and RetainUntilDate.');
  const mode = parseRetentionMode(rawMode);
  if (mode === undefined) throw malformed('Retention Mode must be GOVERNANCE or COMPLIANCE.');
  const retainUntil = parseIsoDate(rawDate);
  if (retainUntil === undefined) throw malformed('RetainUntilDate must be an ISO 8601 timestamp.');
  return { mode, retainUntil };
}

/** Retention (GetObjectRetention). */
export function encodeRetention(mode: RetentionMode, retainUntil: Date): string {
  return xmlDocument('Retention', { Mode: mode, RetainUntilDate: retainUntil }, S3_XMLNS);
}

/** Decodes `<LegalHold><Status>ON|OFF</Status></LegalHold>` (anything else is MalformedXML). */
export function decodeLegalHold(body: Buffer): boolean {
  const status = textOf(parseXmlBody(body, 'LegalHold'), 'Status');
  if (status !== 'ON' && status !== 'OFF') throw malformed('LegalHold Status must be ON or OFF.');
  return status === 'ON';
}

/** LegalHold (GetObjectLegalHold). */
export function encodeLegalHold(on: boolean): string {
  return xmlDocument('LegalHold', { Status: on ? 'ON' : 'OFF' }, S3_XMLNS);
}
