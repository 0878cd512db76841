/**
 * The only file that imports node-forge (STYLE.md convention 11). Pure: PEM strings in, PEM strings or facts out.
 * forge reads RSA certificates only; for other key types (ECDSA certificates from an ACME CA) the facts come from
 * node's X509Certificate instead, so importing such a certificate still works.
 */
import { X509Certificate, createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** What deploy-kit needs to know about one certificate. */
export interface CertFacts {
  readonly subject: string;
  readonly issuer: string;
  readonly commonName: string | undefined;
  /** DNS names of the subjectAltName extension, lower-cased. */
  readonly dnsNames: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly isCA: boolean;
  /** DER SubjectPublicKeyInfo, base64: equal for a certificate and the key it was issued for. */
  readonly publicKeyId: string;
}

type ForgeName = { attributes: { shortName?: string; name?: string; value?: unknown }[] };

function nameToString(name: ForgeName): string {
  return name.attributes.map((a) => `${a.shortName ?? a.name ?? '?'}=${String(a.value)}`).join(', ');
}

/** forge writes CRLF line ends; PEM files on Linux use LF. */
function lf(pem: string): string {
  return pem.replace(/\r\n/g, '\n');
}

function spkiId(pem: string): string {
  return createPublicKey(pem).export({ type: 'spki', format: 'der' }).toString('base64');
}

function factsFromNode(pem: string): CertFacts {
  const x = new X509Certificate(pem);
  const dnsNames = (x.subjectAltName ?? '').split(/,\s*/)
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4).toLowerCase());
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(x.subject)?.[1];
  return {
    subject: x.subject.replace(/\n/g, ', '),
    issuer: x.issuer.replace(/\n/g, ', '),
    commonName: cn,
    dnsNames,
    notBefore: new Date(x.validFrom),
    notAfter: new Date(x.validTo),
    isCA: x.ca,
    publicKeyId: x.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

/** Reads one PEM certificate; throws an Error with a readable message when it is not one. */
export function readCertificate(pem: string): CertFacts {
  let cert: forge.pki.Certificate;
  try {
    cert = forge.pki.certificateFromPem(pem);
  } catch (err) {
    if (err instanceof Error && /not RSA/i.test(err.message)) return factsFromNode(pem);
    throw new Error(`not a readable certificate (${err instanceof Error ? err.message : String(err)})`);
  }
  const san = cert.getExtension('subjectAltName') as { altNames?: { type: number; value: string }[] } | undefined;
  const bc = cert.getExtension('basicConstraints') as { cA?: boolean } | undefined;
  const cnField = cert.subject.getField('CN') as { value?: unknown } | null;
  return {
    subject: nameToString(cert.subject as ForgeName),
    issuer: nameToString(cert.issuer as ForgeName),
    commonName: cnField === null ? undefined : String(cnField.value),
    // GeneralName type 2 is dNSName (RFC 5280 §4.2.1.6).
    dnsNames: (san?.altNames ?? []).filter((n) => n.type === 2).map((n) => n.value.toLowerCase()),
    notBefore: cert.validity.notBefore,
    notAfter: cert.validity.notAfter,
    isCA: bc?.cA === true,
    publicKeyId: spkiId(forge.pki.publicKeyToPem(cert.publicKey as forge.pki.rsa.PublicKey)),
  };
}

/** The public-key id of a PEM private key (any type node reads), comparable with {@link CertFacts.publicKeyId}. */
export function privateKeyId(keyPem: string): string {
  try {
    const rsa = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
    return spkiId(forge.pki.publicKeyToPem(forge.pki.setRsaPublicKey(rsa.n, rsa.e)));
  } catch {
    try {
      return createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' }).toString('base64');
    } catch (err) {
      throw new Error(`not a readable private key (${err instanceof Error ? err.message : String(err)})`);
    }
  }
}

/** A key pair as PEM. */
export interface KeyPairPem {
  readonly privateKeyPem: string;
  readonly publicKeyPem: string;
}

/** A fresh RSA 2048 key pair (forge delegates to node's native generator, so it takes well under a second). */
export function generateRsaKeyPair(): KeyPairPem {
  const kp = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  return { privateKeyPem: lf(forge.pki.privateKeyToPem(kp.privateKey)), publicKeyPem: lf(forge.pki.publicKeyToPem(kp.publicKey)) };
}

/** What to put in a certificate. */
export interface CertificateRequest {
  readonly commonName: string;
  readonly dnsNames: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly isCA: boolean;
  readonly publicKeyPem: string;
  /** Issuer: its certificate and key; absent for a self-signed certificate. */
  readonly issuer?: { certPem: string; keyPem: string };
  /** Key of a self-signed certificate (ignored when `issuer` is given). */
  readonly selfKeyPem?: string;
}

/** Signs a certificate with SHA-256 (RFC 5280 profile: CA with keyCertSign, leaf with serverAuth + SAN). */
export function createCertificate(req: CertificateRequest): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(req.publicKeyPem);
  // Positive serial of 16 random bytes (RFC 5280 §4.1.2.2: positive, at most 20 octets).
  cert.serialNumber = '01' + randomBytes(15).toString('hex');
  cert.validity.notBefore = req.notBefore;
  cert.validity.notAfter = req.notAfter;
  const subject = [{ shortName: 'CN', value: req.commonName }, { shortName: 'O', value: 'deploy-kit' }];
  cert.setSubject(subject);
  let signingKey: forge.pki.PrivateKey;
  if (req.issuer !== undefined) {
    const issuerCert = forge.pki.certificateFromPem(req.issuer.certPem);
    cert.setIssuer(issuerCert.subject.attributes);
    signingKey = forge.pki.privateKeyFromPem(req.issuer.keyPem);
  } else {
    if (req.selfKeyPem === undefined) throw new Error('a self-signed certificate needs its own key');
    cert.setIssuer(subject);
    signingKey = forge.pki.privateKeyFromPem(req.selfKeyPem);
  }
  const extensions: object[] = req.isCA
    ? [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
        { name: 'subjectKeyIdentifier' },
      ]
    : [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: req.dnsNames.map((value) => ({ type: 2, value })) },
        { name: 'subjectKeyIdentifier' },
      ];
  cert.setExtensions(extensions);
  cert.sign(signingKey, forge.md.sha256.create());
  return lf(forge.pki.certificateToPem(cert));
}
