/**
 * Where each IAM record lives in the system bucket and how it is encoded: JSON with a `version` marker
 * (STYLE.md convention 7), decoded strictly so a damaged record is reported, never half-used.
 */
import { IamError } from './iam-errors.js';
import { checkAccessKey, checkGroupName, checkPolicyName, checkSecretKey, checkStatus } from './iam-model.js';
import type { GroupRecord, PolicyRecord, ServiceAccountRecord, UserRecord } from './iam-model.js';

/** Kinds of IAM records (also the kinds a peer reload names). */
export type IamRecordKind = 'user' | 'policy' | 'service-account' | 'group';

/** One changed record: what peers reload after a mutation (issue 4 "reloaded through peer calls when changed"). */
export interface IamChange {
  readonly kind: IamRecordKind;
  /** Access key of a user or service account, or a policy name. */
  readonly name: string;
}

/** Current record format version. */
export const IAM_RECORD_VERSION = 1;

const PREFIXES: Readonly<Record<IamRecordKind, string>> = {
  user: 'iam/users/',
  policy: 'iam/policies/',
  'service-account': 'iam/service-accounts/',
  group: 'iam/groups/',
};

/** Object key prefix of a kind (`iam/users/`…). */
export function prefixOf(kind: IamRecordKind): string {
  return PREFIXES[kind];
}

/** Object key of one record: `iam/users/<accessKey>.json`, `iam/policies/<name>.json`, `iam/service-accounts/<accessKey>.json`. */
export function keyOf(change: IamChange): string {
  return `${PREFIXES[change.kind]}${change.name}.json`;
}

/** The record name of an object key of `kind`, or undefined when the key is not one of its records. */
export function nameOf(kind: IamRecordKind, key: string): string | undefined {
  const prefix = PREFIXES[kind];
  if (!key.startsWith(prefix) || !key.endsWith('.json')) return undefined;
  const name = key.slice(prefix.length, -'.json'.length);
  return name === '' || name.includes('/') ? undefined : name;
}

/** Encodes a record for storage. */
export function encodeRecord(record: UserRecord | PolicyRecord | ServiceAccountRecord | GroupRecord): Buffer {
  return Buffer.from(JSON.stringify({ version: IAM_RECORD_VERSION, ...record }), 'utf8');
}

function parse(data: Buffer, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(data.toString('utf8'));
  } catch (cause) {
    throw new IamError('CorruptRecord', `${what} is not JSON`, { cause });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new IamError('CorruptRecord', `${what} is not a JSON object`);
  const o = v as Record<string, unknown>;
  if (o['version'] !== IAM_RECORD_VERSION) throw new IamError('CorruptRecord', `${what} has unknown version ${String(o['version'])}`);
  return o;
}

function field<T>(what: string, check: () => T): T {
  try {
    return check();
  } catch (cause) {
    throw new IamError('CorruptRecord', `${what}: ${(cause as Error).message}`, { cause });
  }
}

function text(o: Record<string, unknown>, name: string, what: string): string {
  const v = o[name];
  if (typeof v !== 'string') throw new IamError('CorruptRecord', `${what}: ${name} is not a string`);
  return v;
}

function optionalText(o: Record<string, unknown>, name: string, what: string): string | undefined {
  return o[name] === undefined ? undefined : text(o, name, what);
}

/** Decodes a user record; CorruptRecord when anything is missing or invalid. */
export function decodeUser(data: Buffer, what = 'user record'): UserRecord {
  const o = parse(data, what);
  const policies = o['policies'];
  if (!Array.isArray(policies) || !policies.every((p) => typeof p === 'string')) throw new IamError('CorruptRecord', `${what}: policies is not a list of names`);
  return {
    accessKey: field(what, () => checkAccessKey(o['accessKey'])),
    secretKey: field(what, () => checkSecretKey(o['secretKey'])),
    status: field(what, () => checkStatus(o['status'])),
    policies: policies as string[],
    updatedAt: text(o, 'updatedAt', what),
  };
}

function nameList(o: Record<string, unknown>, name: string, what: string): string[] {
  const v = o[name];
  if (!Array.isArray(v) || !v.every((p) => typeof p === 'string')) throw new IamError('CorruptRecord', `${what}: ${name} is not a list of names`);
  return v as string[];
}

/** Decodes a group record; CorruptRecord when anything is missing or invalid. */
export function decodeGroup(data: Buffer, what = 'group record'): GroupRecord {
  const o = parse(data, what);
  return {
    name: field(what, () => checkGroupName(o['name'])),
    members: nameList(o, 'members', what),
    policies: nameList(o, 'policies', what),
    status: field(what, () => checkStatus(o['status'])),
    updatedAt: text(o, 'updatedAt', what),
  };
}

/** Decodes a policy record (the document itself is parsed by the caller). */
export function decodePolicy(data: Buffer, what = 'policy record'): PolicyRecord {
  const o = parse(data, what);
  return { name: field(what, () => checkPolicyName(o['name'])), policy: text(o, 'policy', what), updatedAt: text(o, 'updatedAt', what) };
}

/** Decodes a service account record (the inline policy is parsed by the caller). */
export function decodeServiceAccount(data: Buffer, what = 'service account record'): ServiceAccountRecord {
  const o = parse(data, what);
  const policy = optionalText(o, 'policy', what);
  const expiration = optionalText(o, 'expiration', what);
  return {
    accessKey: field(what, () => checkAccessKey(o['accessKey'])),
    secretKey: field(what, () => checkSecretKey(o['secretKey'])),
    parent: field(what, () => checkAccessKey(o['parent'])),
    status: field(what, () => checkStatus(o['status'])),
    updatedAt: text(o, 'updatedAt', what),
    ...(policy !== undefined ? { policy } : {}),
    ...(expiration !== undefined ? { expiration } : {}),
  };
}
