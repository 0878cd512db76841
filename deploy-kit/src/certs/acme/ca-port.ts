/**
 * The port between deploy-kit's ACME flow and an ACME CA client (STYLE.md convention 11): the flow (obtain.ts) is
 * tested with a fake, the real implementation (acme-client-ca.ts) is the only file that imports acme-client.
 */

/** Where HTTP-01 key authorizations are published (RFC 8555 §8.3: `/.well-known/acme-challenge/<token>` on port 80). */
export interface ChallengeWebroot {
  put(token: string, keyAuthorization: string): Promise<void>;
  remove(token: string): Promise<void>;
}

/** One certificate order for a set of hostnames. */
export interface AcmeOrderRequest {
  /** ACME directory URL (RFC 8555 §7.1.1). */
  readonly directoryUrl: string;
  /** PEM private key of the ACME account (RFC 8555 §7.3). */
  readonly accountKeyPem: string;
  /** Contact address registered with the account. */
  readonly email: string;
  /** Names of the certificate; the first is also its common name. */
  readonly hosts: readonly string[];
  /** Extra CA certificate(s), PEM, trusted for the directory's own TLS (a test CA such as pebble), besides the system roots. */
  readonly directoryCaPem?: string;
  readonly webroot: ChallengeWebroot;
}

/** What an order yields: the chain (leaf first) and the leaf's private key, both PEM. */
export interface IssuedCertificate {
  readonly chainPem: string;
  readonly keyPem: string;
}

/** An ACME CA client. Failures reject with a DeployKitError (DK_ERR_EXTERNAL_TOOL) that names the CA's problem. */
export interface AcmeCa {
  /** A new account private key, PEM. */
  createAccountKey(): Promise<string>;
  /** Registers (or finds) the account, orders a certificate for `hosts` via HTTP-01 and downloads the chain. */
  order(req: AcmeOrderRequest): Promise<IssuedCertificate>;
}
