import type { ObjectTag } from '../object-layer.js';

/**
 * Bucket lifecycle rules as the engine applies them (https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html).
 * The S3 layer validates the XML configuration and stores it as a LifecycleConfig JSON document (bucket config
 * kind 'lifecycle'); the lifecycle pass reads that document back.
 */

/** Which objects a rule applies to; every given predicate must hold (the And of the XML). */
export interface LifecycleFilter {
  prefix?: string;
  tags?: ObjectTag[];
  /** Exclusive bounds in bytes. */
  sizeGreaterThan?: number;
  sizeLessThan?: number;
}

/** One lifecycle rule. */
export interface LifecycleRule {
  id?: string;
  enabled: boolean;
  filter: LifecycleFilter;
  /** The rule used the legacy top-level `<Prefix>` instead of `<Filter>` (kept for GetBucketLifecycleConfiguration). */
  legacyPrefix?: boolean;
  expiration?: {
    days?: number;
    /** Midnight UTC, milliseconds since the epoch. */
    date?: number;
    expiredObjectDeleteMarker?: boolean;
  };
  noncurrentVersionExpiration?: {
    noncurrentDays?: number;
    newerNoncurrentVersions?: number;
  };
  abortIncompleteMultipartUpload?: { daysAfterInitiation: number };
}

/** A bucket's lifecycle configuration. */
export interface LifecycleConfig {
  rules: LifecycleRule[];
}

const DAY_MS = 86_400_000;

/**
 * When an action of `days` days counted from `baseMs` becomes due: AWS adds the days to the base time and rounds
 * up to the next midnight UTC (https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-expire-general-considerations.html:
 * an object created 1/15 10:30 UTC with Days=3 expires 1/19 00:00 UTC).
 */
export function dueTime(baseMs: number, days: number): number {
  return Math.floor((baseMs + days * DAY_MS) / DAY_MS) * DAY_MS + DAY_MS;
}

/** True when `key` (and, for object versions, its tags and size) satisfies the filter. Delete markers have no tags or size. */
export function filterMatches(filter: LifecycleFilter, key: string, object: { tags: readonly ObjectTag[]; size: number } | undefined): boolean {
  if (filter.prefix !== undefined && !key.startsWith(filter.prefix)) return false;
  const needsObject = (filter.tags?.length ?? 0) > 0 || filter.sizeGreaterThan !== undefined || filter.sizeLessThan !== undefined;
  if (!needsObject) return true;
  if (object === undefined) return false;
  for (const t of filter.tags ?? []) {
    if (!object.tags.some((o) => o.key === t.key && o.value === t.value)) return false;
  }
  if (filter.sizeGreaterThan !== undefined && !(object.size > filter.sizeGreaterThan)) return false;
  if (filter.sizeLessThan !== undefined && !(object.size < filter.sizeLessThan)) return false;
  return true;
}

/** Decodes a stored configuration document. */
export function parseLifecycleConfig(stored: string): LifecycleConfig {
  const parsed = JSON.parse(stored) as LifecycleConfig;
  return { rules: Array.isArray(parsed.rules) ? parsed.rules : [] };
}
