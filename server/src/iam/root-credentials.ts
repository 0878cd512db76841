/**
 * Root credentials: from the environment when given (SVC_ACCESS_KEY/SVC_SECRET_KEY, *_FILE, MINIO_ROOT_* aliases),
 * otherwise generated once on first start and kept in `<configDir>/credentials.json` with mode 600.
 * The caller prints generated credentials exactly once: `generated` is true only on the start that created them.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../common/index.js';

/** A root access key pair. */
export interface RootCredentials {
  accessKey: string;
  secretKey: string;
}

/** The credentials file name inside the config directory. */
export const CREDENTIALS_FILE = 'credentials.json';

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SECRET_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const out: string[] = [];
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < limit && out.length < length) out.push(alphabet[b % alphabet.length] ?? 'A');
    }
  }
  return out.join('');
}

/** Generates an AWS-shaped key pair: 20-character access key, 40-character secret. */
export function generateCredentials(): RootCredentials {
  return { accessKey: randomString(ALPHANUM, 20), secretKey: randomString(SECRET_CHARS, 40) };
}

/**
 * Returns the root credentials to use. Reads `<configDir>/credentials.json` if present; otherwise writes new ones
 * (temp file with mode 600, then rename) and reports `generated: true`.
 */
export async function loadOrCreateRootCredentials(
  fromEnv: RootCredentials | undefined,
  configDir: string,
): Promise<{ credentials: RootCredentials; generated: boolean; file?: string }> {
  if (fromEnv) return { credentials: fromEnv, generated: false };
  const file = join(configDir, CREDENTIALS_FILE);
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<RootCredentials>;
    if (typeof parsed.accessKey === 'string' && typeof parsed.secretKey === 'string') {
      // Tighten a mode widened by hand; the file holds a secret.
      await chmod(file, 0o600);
      return { credentials: { accessKey: parsed.accessKey, secretKey: parsed.secretKey }, generated: false, file };
    }
    throw new Error(`${file} does not hold accessKey and secretKey; remove it to generate new credentials`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const credentials = generateCredentials();
  await mkdir(configDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  // Synced, name included: credentials lost in a power cut would be generated anew at the next start, and the ones
  // the operator saved would stop working (power-cut test in root-credentials.test.ts).
  await writeFile(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx', flush: true });
  await rename(tmp, file);
  await syncDir(configDir);
  return { credentials, generated: true, file };
}
