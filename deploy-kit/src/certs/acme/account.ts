/** The ACME account key (RFC 8555 §7.3), kept in acme/account.key with mode 600 (SPEC rule 12) and reused on every order. */
import { dirname, join } from 'node:path';
import type { Fs } from '../../io/index.js';
import { CERT_MODES } from '../store.js';
import type { AcmeCa } from './ca-port.js';

/** Account key file, relative to the deployment directory. */
export const ACCOUNT_KEY_FILE = 'acme/account.key';

/** The account key of the deployment, created on first use; a key left with a looser mode is tightened to 600. */
export async function loadOrCreateAccountKey(fs: Fs, dir: string, ca: AcmeCa): Promise<{ pem: string; created: boolean }> {
  const path = join(dir, ACCOUNT_KEY_FILE);
  const existing = await fs.readText(path);
  if (existing !== undefined && existing.includes('PRIVATE KEY')) {
    const info = await fs.stat(path);
    if (info !== undefined && info.mode !== CERT_MODES.secret) await fs.chmod(path, CERT_MODES.secret);
    return { pem: existing, created: false };
  }
  const pem = await ca.createAccountKey();
  await fs.mkdirp(dirname(path), CERT_MODES.dir);
  await fs.writeAtomic(path, pem, CERT_MODES.secret);
  return { pem, created: true };
}
