import type { FastifyReply } from 'fastify';
import type { ObjectInfo, ObjectLayer, ObjectLockCheck, ObjectLockState, ObjectRetention, VersioningState } from '../../../storage/index.js';
import { header, sendEmpty, sendXml, type S3Context } from '../context.js';
import { hasIntegrityHeader, readXmlBody } from '../body.js';
import {
  decodeLegalHold, decodeObjectLockConfiguration, decodeRetention, encodeLegalHold, encodeObjectLockConfiguration,
  encodeRetention, parseIsoDate, parseRetentionMode, type BucketLockConfig,
} from '../xml/object-lock-xml.js';
import { S3Error } from '../s3-error.js';

/**
 * S3 Object Lock (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html): the bucket's lock
 * configuration (bucket config document 'object-lock', JSON), per-version retention and legal hold (engine
 * `updateObjectLock`), the lock settings of new objects, and the check that refuses removing a locked version.
 */

const DAY_MS = 86_400_000;

/** AWS's answer to a refused change or delete of a protected version. */
export function objectLockedError(): S3Error {
  return new S3Error('AccessDenied', { message: 'Access Denied because object protected by object lock.' });
}

function missingLockConfig(): S3Error {
  return new S3Error('InvalidRequest', { message: 'Bucket is missing Object Lock Configuration' });
}

function requireIntegrity(ctx: S3Context, what: string): void {
  // AWS requires Content-MD5 (or an SDK checksum) on every request that sets Object Lock state.
  if (!hasIntegrityHeader(ctx)) {
    throw new S3Error('InvalidRequest', { message: `Content-MD5 OR x-amz-checksum- HTTP header is required for ${what}` });
  }
}

/**
 * The bucket's Object Lock configuration, or undefined when Object Lock is not enabled on it. Writers pass the
 * versioning state they already read: Object Lock implies versioning Enabled (and it can never be suspended), so
 * any other state answers without reading the bucket record again.
 */
export async function bucketObjectLock(layer: ObjectLayer, bucket: string, versioning?: VersioningState | null): Promise<BucketLockConfig | undefined> {
  if (versioning !== undefined && versioning !== 'enabled') return undefined;
  const stored = await layer.getBucketConfig(bucket, 'object-lock');
  if (stored === undefined) return undefined;
  return JSON.parse(stored) as BucketLockConfig;
}

/**
 * CreateBucket with `x-amz-bucket-object-lock-enabled: true`: AWS enables versioning with Object Lock
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html). Returns whether the header asked for it.
 */
export function wantsObjectLockAtCreation(ctx: S3Context): boolean {
  const raw = header(ctx, 'x-amz-bucket-object-lock-enabled');
  if (raw === undefined || raw.trim().toLowerCase() === 'false') return false;
  if (raw.trim().toLowerCase() === 'true') return true;
  throw new S3Error('InvalidArgument', { message: 'x-amz-bucket-object-lock-enabled must be true or false.', extra: { ArgumentName: 'x-amz-bucket-object-lock-enabled', ArgumentValue: raw } });
}

/** Turns versioning and Object Lock on for a bucket just created. */
export async function enableObjectLock(layer: ObjectLayer, bucket: string): Promise<void> {
  await layer.putBucketConfig(bucket, 'versioning', 'Enabled');
  await layer.putBucketConfig(bucket, 'object-lock', JSON.stringify({}));
}

/**
 * PutObjectLockConfiguration (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLockConfiguration.html):
 * sets or replaces the default retention; on a bucket without Object Lock it enables it when versioning is
 * Enabled (AWS allows enabling Object Lock on existing versioned buckets) and is 409 InvalidBucketState otherwise.
 */
export async function putObjectLockConfiguration(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  requireIntegrity(ctx, 'this request');
  const config = decodeObjectLockConfiguration(await readXmlBody(ctx));
  if ((await bucketObjectLock(ctx.layer, bucket)) === undefined && (await ctx.layer.getBucketConfig(bucket, 'versioning')) !== 'Enabled') {
    throw new S3Error('InvalidBucketState', { message: 'Versioning must be \'Enabled\' on the bucket to apply a Object Lock configuration' });
  }
  await ctx.layer.putBucketConfig(bucket, 'object-lock', JSON.stringify(config));
  return sendEmpty(ctx, 200);
}

/** GetObjectLockConfiguration: 404 ObjectLockConfigurationNotFoundError on a bucket without Object Lock. */
export async function getObjectLockConfiguration(ctx: S3Context, bucket: string): Promise<FastifyReply> {
  const config = await bucketObjectLock(ctx.layer, bucket);
  if (config === undefined) throw new S3Error('ObjectLockConfigurationNotFoundError', { resource: `/${bucket}`, extra: { BucketName: bucket } });
  return sendXml(ctx, 200, encodeObjectLockConfiguration(config));
}

async function requireLockBucket(ctx: S3Context, bucket: string): Promise<BucketLockConfig> {
  const config = await bucketObjectLock(ctx.layer, bucket);
  if (config === undefined) throw missingLockConfig();
  return config;
}

/**
 * True when the request asks to bypass GOVERNANCE retention and may: `x-amz-bypass-governance-retention: true`
 * and, for anyone but root, s3:BypassGovernanceRetention on the object.
 */
export function bypassGovernance(ctx: S3Context, bucket: string, key: string): boolean {
  if (header(ctx, 'x-amz-bypass-governance-retention')?.trim().toLowerCase() !== 'true') return false;
  return ctx.authorizeKey === undefined || ctx.authorizeKey(bucket, key, 's3:BypassGovernanceRetention');
}

/** The engine's delete check for `bucket`, or undefined when the bucket has no Object Lock. */
export async function deleteLockCheck(
  ctx: S3Context, bucket: string, key: string, versioning: VersioningState | undefined,
): Promise<ObjectLockCheck | undefined> {
  if ((await bucketObjectLock(ctx.layer, bucket, versioning ?? null)) === undefined) return undefined;
  return { now: ctx.now(), bypassGovernance: bypassGovernance(ctx, bucket, key) };
}

/**
 * Whether `next` may replace `current` (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html#object-lock-retention-modes):
 * an expired retention may change freely; COMPLIANCE may only be extended; GOVERNANCE may be extended (or turned
 * into COMPLIANCE) and be shortened or removed only with a bypass.
 */
export function retentionChangeAllowed(current: ObjectRetention | undefined, next: ObjectRetention | undefined, now: Date, bypass: boolean): boolean {
  if (current === undefined || current.retainUntil.getTime() <= now.getTime()) return true;
  const extends_ = next !== undefined && next.retainUntil.getTime() >= current.retainUntil.getTime();
  if (current.mode === 'COMPLIANCE') return extends_ && next.mode === 'COMPLIANCE';
  return extends_ || bypass;
}

function futureDate(d: Date, now: Date): Date {
  if (d.getTime() <= now.getTime()) throw new S3Error('InvalidArgument', { message: 'The retain until date must be in the future!' });
  return d;
}

/** PutObjectRetention (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectRetention.html). */
export async function putObjectRetention(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  requireIntegrity(ctx, 'this request');
  const wanted = decodeRetention(await readXmlBody(ctx));
  await requireLockBucket(ctx, bucket);
  const now = ctx.now();
  const next = wanted === undefined ? undefined : { mode: wanted.mode, retainUntil: futureDate(wanted.retainUntil, now) };
  const bypass = bypassGovernance(ctx, bucket, key);
  await ctx.layer.updateObjectLock(bucket, key, versionId === undefined ? {} : { versionId }, (current) => {
    if (!retentionChangeAllowed(current.retention, next, now, bypass)) throw objectLockedError();
    const { retention: _old, ...rest } = current;
    return next === undefined ? rest : { ...rest, retention: next };
  });
  return sendEmpty(ctx, 200);
}

function noLockConfiguration(): S3Error {
  return new S3Error('NoSuchObjectLockConfiguration', { message: 'The specified object does not have a ObjectLock configuration' });
}

async function lockOf(ctx: S3Context, bucket: string, key: string, versionId: string | undefined): Promise<ObjectLockState> {
  await requireLockBucket(ctx, bucket);
  const info = await ctx.layer.getObjectInfo(bucket, key, versionId === undefined ? {} : { versionId });
  return info.lock ?? {};
}

/** GetObjectRetention: 404 NoSuchObjectLockConfiguration when the version has no retention. */
export async function getObjectRetention(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  const { retention } = await lockOf(ctx, bucket, key, versionId);
  if (retention === undefined) throw noLockConfiguration();
  return sendXml(ctx, 200, encodeRetention(retention.mode, retention.retainUntil));
}

/** PutObjectLegalHold (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLegalHold.html): ON or OFF at any time. */
export async function putObjectLegalHold(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  requireIntegrity(ctx, 'this request');
  const on = decodeLegalHold(await readXmlBody(ctx));
  await requireLockBucket(ctx, bucket);
  await ctx.layer.updateObjectLock(bucket, key, versionId === undefined ? {} : { versionId }, (current) => ({ ...current, legalHold: on }));
  return sendEmpty(ctx, 200);
}

/** GetObjectLegalHold: 404 NoSuchObjectLockConfiguration when no legal hold was ever set on the version. */
export async function getObjectLegalHold(ctx: S3Context, bucket: string, key: string, versionId?: string): Promise<FastifyReply> {
  const { legalHold } = await lockOf(ctx, bucket, key, versionId);
  if (legalHold === undefined) throw noLockConfiguration();
  return sendXml(ctx, 200, encodeLegalHold(legalHold));
}

/** Default retention of `config` for an object created at `now` (years are calendar years, as AWS counts them). */
export function defaultRetention(config: BucketLockConfig, now: Date): ObjectRetention | undefined {
  const dr = config.defaultRetention;
  if (dr === undefined) return undefined;
  if (dr.days !== undefined) return { mode: dr.mode, retainUntil: new Date(now.getTime() + dr.days * DAY_MS) };
  const until = new Date(now.getTime());
  until.setUTCFullYear(until.getUTCFullYear() + (dr.years ?? 0));
  return { mode: dr.mode, retainUntil: until };
}

/**
 * The x-amz-object-lock-* headers of a write (PutObject, CopyObject, CreateMultipartUpload), checked as AWS does
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html): mode and retain-until-date together, the
 * date in the future, legal hold ON or OFF; any of them on a bucket without Object Lock is InvalidRequest.
 */
export function explicitLock(ctx: S3Context, now: Date): ObjectLockState | undefined {
  const rawMode = header(ctx, 'x-amz-object-lock-mode');
  const rawDate = header(ctx, 'x-amz-object-lock-retain-until-date');
  const rawHold = header(ctx, 'x-amz-object-lock-legal-hold');
  if (rawMode === undefined && rawDate === undefined && rawHold === undefined) return undefined;
  const out: ObjectLockState = {};
  if (rawMode !== undefined || rawDate !== undefined) {
    if (rawMode === undefined || rawDate === undefined) {
      throw new S3Error('InvalidArgument', { message: 'x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied' });
    }
    const mode = parseRetentionMode(rawMode.trim().toUpperCase());
    if (mode === undefined) throw new S3Error('InvalidArgument', { message: 'Unknown wormMode directive.', extra: { ArgumentName: 'x-amz-object-lock-mode', ArgumentValue: rawMode } });
    const date = parseIsoDate(rawDate);
    if (date === undefined) {
      throw new S3Error('InvalidArgument', { message: 'The retain until date must be provided in ISO 8601 format', extra: { ArgumentName: 'x-amz-object-lock-retain-until-date', ArgumentValue: rawDate } });
    }
    out.retention = { mode, retainUntil: futureDate(date, now) };
  }
  if (rawHold !== undefined) {
    const v = rawHold.trim().toUpperCase();
    if (v !== 'ON' && v !== 'OFF') {
      throw new S3Error('InvalidArgument', { message: 'Legal Hold must be either of \'ON\' or \'OFF\'', extra: { ArgumentName: 'x-amz-object-lock-legal-hold', ArgumentValue: rawHold } });
    }
    out.legalHold = v === 'ON';
  }
  return out;
}

/**
 * The lock state a new object of `bucket` gets: the request's x-amz-object-lock-* headers, else the bucket's
 * default retention. Writes that set a retention or a legal hold need Content-MD5 or a checksum, and, for
 * anyone but root, s3:PutObjectRetention / s3:PutObjectLegalHold.
 */
export async function lockForWrite(
  ctx: S3Context, bucket: string, key: string, opts: { checkIntegrity: boolean; versioning: VersioningState | undefined },
): Promise<ObjectLockState | undefined> {
  const now = ctx.now();
  const explicit = explicitLock(ctx, now);
  const config = await bucketObjectLock(ctx.layer, bucket, opts.versioning ?? null);
  if (config === undefined) {
    if (explicit !== undefined) throw missingLockConfig();
    return undefined;
  }
  const deny = (action: string): boolean => ctx.authorizeKey !== undefined && !ctx.authorizeKey(bucket, key, action);
  if (explicit?.retention !== undefined && deny('s3:PutObjectRetention')) throw new S3Error('AccessDenied');
  if (explicit?.legalHold !== undefined && deny('s3:PutObjectLegalHold')) throw new S3Error('AccessDenied');
  const retention = explicit?.retention ?? defaultRetention(config, now);
  const lock: ObjectLockState = {
    ...(retention !== undefined ? { retention } : {}),
    ...(explicit?.legalHold !== undefined ? { legalHold: explicit.legalHold } : {}),
  };
  if (lock.retention === undefined && lock.legalHold === undefined) return undefined;
  if (opts.checkIntegrity) requireIntegrity(ctx, 'Put Object requests with Object Lock parameters');
  return lock;
}

/**
 * x-amz-object-lock-* headers of GET/HEAD (https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html),
 * shown only to callers allowed s3:GetObjectRetention / s3:GetObjectLegalHold, as AWS does.
 */
export function lockResponseHeaders(ctx: S3Context, bucket: string, info: ObjectInfo): Record<string, string> {
  const lock = info.lock;
  if (lock === undefined) return {};
  const may = (action: string): boolean => ctx.authorizeKey === undefined || ctx.authorizeKey(bucket, info.key, action);
  const out: Record<string, string> = {};
  if (lock.retention !== undefined && may('s3:GetObjectRetention')) {
    out['x-amz-object-lock-mode'] = lock.retention.mode;
    out['x-amz-object-lock-retain-until-date'] = lock.retention.retainUntil.toISOString();
  }
  if (lock.legalHold !== undefined && may('s3:GetObjectLegalHold')) out['x-amz-object-lock-legal-hold'] = lock.legalHold ? 'ON' : 'OFF';
  return out;
}
