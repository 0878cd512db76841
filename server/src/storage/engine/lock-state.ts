import type { ObjectLockMeta, ObjectMeta } from '../format/index.js';
import type { ObjectLockCheck, ObjectLockState } from './object-layer.js';

/** Conversions and checks of one version's Object Lock state (stored form: format ObjectLockMeta). */

/** The stored form of a lock state (undefined when it holds nothing). */
export function toLockMeta(state: ObjectLockState | undefined): ObjectLockMeta | undefined {
  if (state === undefined) return undefined;
  const out: ObjectLockMeta = {};
  if (state.retention !== undefined) out.retention = { mode: state.retention.mode, retainUntil: state.retention.retainUntil.getTime() };
  if (state.legalHold !== undefined) out.legalHold = state.legalHold;
  return out.retention === undefined && out.legalHold === undefined ? undefined : out;
}

/** The API form of a stored lock (an empty state when none). */
export function fromLockMeta(meta: ObjectLockMeta | undefined): ObjectLockState {
  const out: ObjectLockState = {};
  if (meta?.retention !== undefined) out.retention = { mode: meta.retention.mode, retainUntil: new Date(meta.retention.retainUntil) };
  if (meta?.legalHold !== undefined) out.legalHold = meta.legalHold;
  return out;
}

/**
 * True when a version with `lock` may not be removed: a legal hold always protects it; a retention period does
 * until its retain-until date, except GOVERNANCE with a bypass
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html#object-lock-retention-modes).
 */
export function isLocked(lock: ObjectLockMeta | undefined, check: ObjectLockCheck): boolean {
  if (lock === undefined) return false;
  if (lock.legalHold === true) return true;
  const r = lock.retention;
  if (r === undefined || r.retainUntil <= check.now.getTime()) return false;
  return !(r.mode === 'GOVERNANCE' && check.bypassGovernance);
}

/** `meta` with its lock replaced by `lock` (the field dropped when undefined). */
export function withLock(meta: ObjectMeta, lock: ObjectLockMeta | undefined): ObjectMeta {
  const { lock: _old, ...rest } = meta;
  return lock === undefined ? rest : { ...rest, lock };
}
