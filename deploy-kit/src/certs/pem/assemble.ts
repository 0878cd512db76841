/** Builds the combined PEM of an import from whatever order the user's files came in; pure. */
import { privateKeyId, readCertificate } from './forge.js';
import { combinePem, parseCombinedPem } from './parse.js';

/** Result of {@link assembleCombinedPem}: the combined text, or why none could be built. */
export type AssembleResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Collects the certificates and the one key from `texts` (a chain file and a key file, or one combined file) and
 * writes them chain first, leaf first, key last (SPEC rule 13). Leaves the rest of validation to inspectCombinedPem.
 */
export function assembleCombinedPem(texts: readonly string[]): AssembleResult {
  const certs: string[] = [];
  const keys: string[] = [];
  for (const t of texts) {
    const parts = parseCombinedPem(t);
    certs.push(...parts.certificates);
    keys.push(...parts.keys);
  }
  const problems: string[] = [];
  if (certs.length === 0) problems.push('no PEM certificate found');
  if (keys.length === 0) problems.push('no PEM private key found');
  if (keys.length > 1) problems.push(`${keys.length} private keys found; give exactly one`);
  if (problems.length > 0) return { ok: false, problems };
  const key = keys[0] as string;
  let keyId: string | undefined;
  try {
    keyId = privateKeyId(key);
  } catch (err) {
    return { ok: false, problems: [err instanceof Error ? err.message : String(err)] };
  }
  const leafIndex = certs.findIndex((c) => {
    try {
      return readCertificate(c).publicKeyId === keyId;
    } catch {
      return false;
    }
  });
  const ordered = leafIndex > 0 ? [certs[leafIndex] as string, ...certs.filter((_, i) => i !== leafIndex)] : certs;
  return { ok: true, text: combinePem(ordered, key) };
}
