/**
 * The tiny persistence port of the IAM store, and its implementation on the object layer: IAM records are
 * objects of the internal bucket `.svc.config` (issue 4 "persisted as objects in a system area of the store"),
 * erasure-coded and read at quorum like any object. Names starting with "." are hidden from ListBuckets by the
 * engine and are not valid S3 bucket names, so no S3 request can address it.
 */
import { Readable } from 'node:stream';
import {
  BucketExistsError, BucketNotFoundError, InsufficientReadQuorumError, ObjectNotFoundError, type ObjectLayer,
} from '../../storage/index.js';
import { IamError } from './iam-errors.js';

/** The internal bucket holding IAM records (and, later, other cluster configuration). */
export const IAM_BUCKET = '.svc.config';

/** Key-value access to the IAM records. */
export interface IamPersistence {
  /** Resolves when the storage can be read at quorum right now; rejects otherwise (a load must then fail). */
  checkReadable(): Promise<void>;
  /** The stored bytes, or undefined when the key does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  put(key: string, data: Buffer): Promise<void>;
  /** Idempotent. */
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix`, in order. */
  list(prefix: string): Promise<string[]>;
}

const NO_META = { system: { 'content-type': 'application/json' }, user: {} };
const PAGE = 1000;

/**
 * IamPersistence over `layer`, or over a getter for storage that opens later (a cluster node listens before its
 * storage is open): until it returns a layer every call fails with IamError StorageNotOpen.
 */
export function objectLayerPersistence(layer: ObjectLayer | (() => ObjectLayer | undefined)): IamPersistence {
  const current = (): ObjectLayer => {
    const l = typeof layer === 'function' ? layer() : layer;
    if (l === undefined) throw new IamError('StorageNotOpen');
    return l;
  };
  const write = async (l: ObjectLayer, key: string, data: Buffer): Promise<void> => {
    await l.putObject(IAM_BUCKET, key, Readable.from([data]), { size: data.length, metadata: NO_META });
  };
  return {
    async checkReadable() {
      const health = await current().health();
      if (!health.readable) throw new InsufficientReadQuorumError('IAM cannot be loaded: the storage lacks read quorum');
    },
    async get(key) {
      try {
        const opened = await current().openObject(IAM_BUCKET, key);
        const chunks: Buffer[] = [];
        for await (const c of opened.read()) chunks.push(c as Buffer);
        return Buffer.concat(chunks);
      } catch (err) {
        if (err instanceof ObjectNotFoundError || err instanceof BucketNotFoundError) return undefined;
        throw err;
      }
    },
    async put(key, data) {
      const l = current();
      try {
        await write(l, key, data);
      } catch (err) {
        if (!(err instanceof BucketNotFoundError)) throw err;
        // First record of a fresh deployment: the bucket is created on demand (write quorum, like any bucket).
        try {
          await l.makeBucket(IAM_BUCKET);
        } catch (made) {
          if (!(made instanceof BucketExistsError)) throw made;
        }
        await write(l, key, data);
      }
    },
    async delete(key) {
      try {
        await current().deleteObject(IAM_BUCKET, key);
      } catch (err) {
        if (!(err instanceof BucketNotFoundError)) throw err;
      }
    },
    async list(prefix) {
      const l = current();
      const keys: string[] = [];
      let startAfter = '';
      for (;;) {
        let page;
        try {
          page = await l.listObjects(IAM_BUCKET, { prefix, delimiter: '', startAfter, maxKeys: PAGE });
        } catch (err) {
          if (err instanceof BucketNotFoundError) return keys;
          throw err;
        }
        for (const o of page.objects) keys.push(o.key);
        if (!page.isTruncated || page.nextMarker === undefined) return keys;
        startAfter = page.nextMarker;
      }
    },
  };
}
