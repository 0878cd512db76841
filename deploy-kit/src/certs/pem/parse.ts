/** Splitting and joining PEM text (RFC 7468); pure. */

/** One `-----BEGIN <label>----- … -----END <label>-----` block. */
export interface PemBlock {
  /** e.g. `CERTIFICATE`, `PRIVATE KEY`, `RSA PRIVATE KEY`, `EC PRIVATE KEY`. */
  readonly label: string;
  /** The whole block, BEGIN and END lines included, ending in a newline. */
  readonly text: string;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n[\s\S]*?-----END \1-----/g;

/** Every PEM block of `text`, in order; anything between blocks is ignored (RFC 7468 §2 allows explanatory text). */
export function splitPem(text: string): PemBlock[] {
  return [...text.matchAll(BLOCK)].map((m) => ({ label: m[1] as string, text: `${m[0].replace(/\r\n/g, '\n')}\n` }));
}

/** True for the labels of private keys (PKCS#8, PKCS#1, SEC1, encrypted PKCS#8). */
export function isKeyLabel(label: string): boolean {
  return label.endsWith('PRIVATE KEY');
}

/** The parts of a combined PEM in file order. */
export interface CombinedPemParts {
  readonly certificates: readonly string[];
  readonly keys: readonly string[];
  /** Labels in file order, to tell whether the chain comes before the key. */
  readonly order: readonly ('certificate' | 'key' | 'other')[];
}

/** Sorts the blocks of a combined PEM into certificates and keys, keeping their order. */
export function parseCombinedPem(text: string): CombinedPemParts {
  const blocks = splitPem(text);
  return {
    certificates: blocks.filter((b) => b.label === 'CERTIFICATE').map((b) => b.text),
    keys: blocks.filter((b) => isKeyLabel(b.label)).map((b) => b.text),
    order: blocks.map((b) => (b.label === 'CERTIFICATE' ? 'certificate' : isKeyLabel(b.label) ? 'key' : 'other')),
  };
}

/** The combined PEM HAProxy reads: certificate chain first (leaf, then intermediates), then the key (SPEC rule 13). */
export function combinePem(chain: readonly string[], keyPem: string): string {
  return [...chain, keyPem].map((b) => (b.endsWith('\n') ? b : `${b}\n`)).join('');
}
