/**
 * The alias file: `~/.config/rc/config.json` (or `$RC_CONFIG_DIR/config.json`), mode 600 in a mode 700 directory,
 * because it holds secret keys.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { EXIT, RcError } from './errors.js';

/** One stored alias. */
export interface AliasConfig {
  url: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

/** The whole file. */
export interface RcConfig {
  version: 1;
  aliases: Record<string, AliasConfig>;
}

/** Alias names are path segments of `alias/bucket/key`, so they cannot hold a slash. */
export const ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** The configuration directory: RC_CONFIG_DIR, else $HOME/.config/rc. */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  const override = env['RC_CONFIG_DIR'];
  if (override !== undefined && override !== '') return override;
  return join(env['HOME'] ?? homedir(), '.config', 'rc');
}

/** Path of config.json inside {@link configDir}. */
export function configPath(env: Readonly<Record<string, string | undefined>>): string {
  return join(configDir(env), 'config.json');
}

function bad(path: string, why: string): RcError {
  return new RcError(EXIT.config, `configuration ${path} is unreadable: ${why}`, { hint: 'fix or delete the file, then run "rc alias set" again' });
}

/** Reads the file; a missing file is an empty configuration, a malformed one a typed error (exit 3). */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): RcConfig {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, aliases: {} };
    throw bad(path, (err as Error).message);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw bad(path, (err as Error).message);
  }
  if (typeof raw !== 'object' || raw === null || typeof (raw as { aliases?: unknown }).aliases !== 'object') throw bad(path, 'no "aliases" object');
  const aliases: Record<string, AliasConfig> = {};
  for (const [name, a] of Object.entries((raw as { aliases: Record<string, unknown> }).aliases)) {
    const v = a as Partial<AliasConfig> | null;
    if (!v || typeof v.url !== 'string' || typeof v.accessKey !== 'string' || typeof v.secretKey !== 'string') {
      throw bad(path, `alias "${name}" needs url, accessKey and secretKey`);
    }
    aliases[name] = { url: v.url, accessKey: v.accessKey, secretKey: v.secretKey, region: typeof v.region === 'string' ? v.region : 'us-east-1' };
  }
  return { version: 1, aliases };
}

/** Writes the file atomically (temp file + rename) with mode 600, creating the directory with mode 700. */
export function saveConfig(env: Readonly<Record<string, string | undefined>>, config: RcConfig): void {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = configPath(env);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The alias named `name`, or exit 3 naming it and how to add it. */
export function getAlias(config: RcConfig, name: string): AliasConfig {
  const a = Object.hasOwn(config.aliases, name) ? config.aliases[name] : undefined;
  if (a === undefined) {
    throw new RcError(EXIT.config, `unknown alias "${name}"`, { hint: `add it with "rc alias set ${name} <url> <access-key> <secret-key>" (see "rc alias list")` });
  }
  return a;
}
