import { CorruptRecordError } from './format-errors.js';

/**
 * Object Lock state of one object version as stored (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html):
 * a retention period (mode + retain-until) and/or a legal hold. Kept as one optional `lock` map in the version's
 * metadata record (and in an upload record until completion); records without it are unlocked.
 */
export interface ObjectLockMeta {
  retention?: { mode: 'GOVERNANCE' | 'COMPLIANCE'; retainUntil: number };
  /** true: ON; false: set OFF (GetObjectLegalHold answers OFF rather than "no configuration"). */
  legalHold?: boolean;
}

/** The `lock` map of a decoded record, or undefined when absent or empty. */
export function decodeLockMeta(what: string, v: unknown): ObjectLockMeta | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new CorruptRecordError(what, 'lock is not a map');
  const o = v as Record<string, unknown>;
  const out: ObjectLockMeta = {};
  if (o.mode !== undefined || o.retainUntil !== undefined) {
    if ((o.mode !== 'GOVERNANCE' && o.mode !== 'COMPLIANCE') || typeof o.retainUntil !== 'number') {
      throw new CorruptRecordError(what, 'bad lock retention');
    }
    out.retention = { mode: o.mode, retainUntil: o.retainUntil };
  }
  if (typeof o.legalHold === 'boolean') out.legalHold = o.legalHold;
  return out.retention === undefined && out.legalHold === undefined ? undefined : out;
}

/** The `lock` field to encode: present only when the version has a retention or a legal hold. */
export function lockField(lock: ObjectLockMeta | undefined): { lock?: Record<string, unknown> } {
  if (lock === undefined) return {};
  const m: Record<string, unknown> = {};
  if (lock.retention !== undefined) {
    m.mode = lock.retention.mode;
    m.retainUntil = lock.retention.retainUntil;
  }
  if (lock.legalHold !== undefined) m.legalHold = lock.legalHold;
  return Object.keys(m).length === 0 ? {} : { lock: m };
}
