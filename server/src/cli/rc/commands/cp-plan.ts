/**
 * Planning of `rc cp`: which source goes to which destination, before any byte moves (STYLE.md convention 9).
 * Naming follows rsync/mc: `dir` copies the folder itself (`target/dir/…`), `dir/` copies its contents.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { readdirSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { RcContext } from '../context.js';
import { EXIT, RcError, UsageError } from '../errors.js';
import { type LocalPath, parsePath, type RemotePath } from '../paths.js';
import { s3ClientFor } from '../s3.js';
import { listKeys, s3Call } from './shared.js';

/** One end of a transfer. */
export type Endpoint =
  | { kind: 'local'; path: string }
  | { kind: 'remote'; remote: RemotePath; bucket: string; key: string };

/** One file to copy. */
export interface Transfer {
  from: Endpoint;
  to: Endpoint;
  size: number;
}

/** Options of `rc cp`. */
export interface CpOptions {
  sources: string[];
  target: string;
  recursive: boolean;
}

function localStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RcError(EXIT.failure, `${path}: ${(err as Error).message}`);
  }
}

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/** A source file with the name it gets under a directory target (`rel`, `/`-separated). */
interface SourceItem {
  from: Endpoint;
  rel: string;
  size: number;
}

function localSources(src: LocalPath, recursive: boolean): SourceItem[] {
  const st = localStat(src.path);
  if (st === undefined) throw new RcError(EXIT.notFound, `${src.path}: no such file or directory`);
  if (!st.isDirectory()) return [{ from: { kind: 'local', path: src.path }, rel: basename(src.path), size: st.size }];
  if (!recursive) throw new UsageError(`${src.path} is a directory`, 'use --recursive to copy a directory');
  const base = src.path.endsWith('/') ? resolve(src.path) : resolve(src.path, '..');
  const files: string[] = [];
  walk(src.path, files);
  return files.map((f) => ({ from: { kind: 'local', path: f }, rel: relative(base, resolve(f)).split(sep).join('/'), size: statSync(f).size }));
}

async function remoteSources(src: RemotePath, recursive: boolean): Promise<SourceItem[]> {
  if (src.bucket === '') throw new UsageError(`"${src.text}" names no bucket`, 'expected alias/bucket/key');
  const client = s3ClientFor(src.alias);
  try {
    if (!recursive) {
      if (src.key === '' || src.key.endsWith('/')) throw new UsageError(`"${src.text}" is a folder`, 'use --recursive to copy a folder');
      const head = await s3Call(src, () => client.send(new HeadObjectCommand({ Bucket: src.bucket, Key: src.key })));
      return [{ from: { kind: 'remote', remote: src, bucket: src.bucket, key: src.key }, rel: basename(src.key), size: head.ContentLength ?? 0 }];
    }
    const prefix = src.key === '' || src.key.endsWith('/') ? src.key : `${src.key}/`;
    const base = src.key.endsWith('/') || src.key === '' ? src.key : src.key.slice(0, src.key.lastIndexOf('/') + 1);
    const items: SourceItem[] = [];
    for await (const o of listKeys({ ...src, client }, prefix)) {
      if (o.key.endsWith('/')) continue;
      items.push({ from: { kind: 'remote', remote: src, bucket: src.bucket, key: o.key }, rel: o.key.slice(base.length), size: o.size });
    }
    if (items.length === 0) throw new RcError(EXIT.notFound, `${src.text}: no objects under this prefix`);
    return items;
  } finally {
    client.destroy();
  }
}

/** Refuses a relative name that would leave the target directory (an object key such as `../../etc/x`). */
function safeRel(rel: string): string {
  const parts = rel.split('/');
  if (parts.some((p) => p === '..' || p === '.') || rel.startsWith('/') || rel === '') {
    throw new RcError(EXIT.failure, `refusing to copy "${rel}": the name would escape the target directory`);
  }
  return rel;
}

function destination(target: LocalPath | RemotePath, rel: string, asDir: boolean): Endpoint {
  if (target.kind === 'local') {
    const st = localStat(target.path);
    const dir = asDir || target.path.endsWith('/') || st?.isDirectory() === true;
    return { kind: 'local', path: dir ? join(target.path, ...safeRel(rel).split('/')) : target.path };
  }
  const dir = asDir || target.key === '' || target.key.endsWith('/');
  const prefix = target.key === '' || target.key.endsWith('/') ? target.key : `${target.key}/`;
  return { kind: 'remote', remote: target, bucket: target.bucket, key: dir ? prefix + safeRel(rel) : target.key };
}

/** Resolves every source and pairs it with its destination; fails before copying anything. */
export async function planCopy(ctx: RcContext, o: CpOptions): Promise<Transfer[]> {
  const config = ctx.config();
  const target = parsePath(config, o.target);
  if (target.kind === 'remote' && target.bucket === '') throw new UsageError(`"${o.target}" names no bucket`, 'expected alias/bucket[/prefix]');
  const sources = o.sources.map((s) => parsePath(config, s));
  if (target.kind === 'local' && sources.every((s) => s.kind === 'local')) {
    throw new UsageError('source and target are both local paths', 'one side must be alias/bucket/key (see "rc alias list")');
  }
  const items: SourceItem[] = [];
  for (const s of sources) items.push(...(s.kind === 'local' ? localSources(s, o.recursive) : await remoteSources(s, o.recursive)));
  const asDir = o.recursive || o.sources.length > 1;
  return items.map((it) => ({ from: it.from, to: destination(target, it.rel, asDir), size: it.size }));
}

/** `alias/bucket/key` or the local path, for messages. */
export function describe(e: Endpoint): string {
  return e.kind === 'local' ? e.path : `${e.remote.aliasName}/${e.bucket}/${e.key}`;
}
