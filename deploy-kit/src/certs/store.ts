/**
 * Where certificate material lands in a deployment directory, written through the Fs port.
 * Private material (the combined PEM, separate key) is mode 600 from the first byte (SPEC rule 13); the CA
 * certificate clients import is public (644).
 */
import { dirname, join } from 'node:path';
import type { Fs } from '../io/index.js';
import { combinePem } from './pem/index.js';

/** Modes of what deploy-kit writes. */
export const CERT_MODES = { secret: 0o600, public: 0o644, dir: 0o700 } as const;

/** The files a certificate is written to, relative to the deployment directory. */
export interface CertLayout {
  /** Combined PEM: chain first, then key. */
  readonly combined: string;
  /** Optional separate chain and key files, for proxies that want them apart. */
  readonly chain?: string;
  readonly key?: string;
  /** Public CA certificate for clients to trust (self-signed only). */
  readonly ca?: string;
}

/** The material to store. */
export interface CertMaterial {
  readonly chainPem: string;
  readonly keyPem: string;
  readonly caPem?: string;
}

/** Relative path and mode of every file {@link storeCertificate} wrote. */
export interface StoredFile {
  readonly path: string;
  readonly mode: number;
}

/** Writes the combined PEM (and the optional pieces) atomically; returns what was written. */
export async function storeCertificate(fs: Fs, dir: string, layout: CertLayout, material: CertMaterial): Promise<StoredFile[]> {
  const files: { path: string; content: string; mode: number }[] = [
    { path: layout.combined, content: combinePem([material.chainPem], material.keyPem), mode: CERT_MODES.secret },
  ];
  if (layout.chain !== undefined) files.push({ path: layout.chain, content: material.chainPem, mode: CERT_MODES.secret });
  if (layout.key !== undefined) files.push({ path: layout.key, content: material.keyPem, mode: CERT_MODES.secret });
  if (layout.ca !== undefined && material.caPem !== undefined) files.push({ path: layout.ca, content: material.caPem, mode: CERT_MODES.public });
  for (const f of files) {
    const abs = join(dir, f.path);
    await fs.mkdirp(dirname(abs), CERT_MODES.dir);
    await fs.writeAtomic(abs, f.content, f.mode);
  }
  return files.map((f) => ({ path: f.path, mode: f.mode }));
}
