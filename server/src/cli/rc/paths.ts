/** `alias/bucket/key` (mc style) versus local paths. */
import type { AliasConfig, RcConfig } from './config.js';
import { getAlias } from './config.js';

/** A parsed remote path. `bucket` and `key` may be empty (`alias`, `alias/bucket`, `alias/bucket/`). */
export interface RemotePath {
  kind: 'remote';
  aliasName: string;
  alias: AliasConfig;
  bucket: string;
  key: string;
  /** The original text, for messages. */
  text: string;
}

/** A local file or directory. */
export interface LocalPath {
  kind: 'local';
  path: string;
}

/** Splits `alias/bucket/key...` into its parts (no alias lookup). */
export function splitRemote(text: string): { aliasName: string; bucket: string; key: string } {
  const [aliasName = '', bucket = '', ...rest] = text.split('/');
  return { aliasName, bucket, key: rest.join('/') };
}

/** A remote path whose alias must exist (exit 3 otherwise). */
export function parseRemote(config: RcConfig, text: string): RemotePath {
  const { aliasName, bucket, key } = splitRemote(text);
  return { kind: 'remote', aliasName, alias: getAlias(config, aliasName), bucket, key, text };
}

/**
 * Remote when the first segment names a configured alias and the text is not explicitly local (`/…`, `./…`,
 * `../…`), local otherwise — mc's rule, so a file literally named like an alias is reached as `./name`.
 */
export function parsePath(config: RcConfig, text: string): RemotePath | LocalPath {
  if (text.startsWith('/') || text.startsWith('./') || text.startsWith('../') || text === '.' || text === '..') return { kind: 'local', path: text };
  const { aliasName } = splitRemote(text);
  if (Object.hasOwn(config.aliases, aliasName)) return parseRemote(config, text);
  return { kind: 'local', path: text };
}
