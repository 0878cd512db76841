/** SPEC rules 12, 13 and §5: secrets, keys and ACME state are readable by their owner only (mode 600 or stricter). */
import { join } from 'node:path';
import type { Fs } from '../../io/index.js';
import { CERT_PATHS } from '../../render/index.js';
import { CA_CERT_FILE } from '../cert-layout.js';
import { octal } from '../shared.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';
import type { CheckView } from './context.js';

async function fileMode(fs: Fs, dir: string, rel: string, out: CheckFinding[]): Promise<void> {
  const info = await fs.stat(join(dir, rel));
  if (info === undefined || info.kind !== 'file') return;
  // Any group/other bit exposes the secret; 600, 400 and the like are fine.
  if ((info.mode & 0o077) !== 0) {
    out.push(finding.error('modes', `${rel} has mode ${octal(info.mode)}, readable by others`, `chmod 600 ${rel}`));
  }
}

/** .env, every file under certs/ except the public CA certificate, and acme/acme.json. */
export async function checkModes(dir: string, view: CheckView, fs: Fs): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  if ((await fs.stat(join(dir, CERT_PATHS.env))) === undefined) {
    out.push(finding.error('modes', `${CERT_PATHS.env} is missing: the nodes get no credentials`, 'run deploy-kit init (it adds missing secrets and never overwrites existing ones)'));
  } else {
    await fileMode(fs, dir, CERT_PATHS.env, out);
  }
  const certFiles = new Set<string>();
  for (const name of await fs.list(join(dir, 'certs'))) certFiles.add(`certs/${name}`);
  certFiles.add(view.pemFile);
  for (const rel of [...certFiles].sort()) {
    if (rel !== CA_CERT_FILE) await fileMode(fs, dir, rel, out);
  }
  await fileMode(fs, dir, CERT_PATHS.traefikAcmeStorage, out);
  return out;
}
