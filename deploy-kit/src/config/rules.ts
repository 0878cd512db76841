/**
 * Pure predicates used by parseSpec. Each returns `undefined` when the value is fine, or a short
 * reason + hint. No I/O.
 */

/** Why a value was rejected, and how to fix it. */
export interface RuleFailure {
  message: string;
  hint: string;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * A DNS hostname usable for Host routing and a certificate SAN: lowercase LDH labels (RFC 1123 §2.1),
 * at least two labels, at most 253 characters, no wildcard, not an IP address.
 */
export function checkHostname(name: string): RuleFailure | undefined {
  const hint = 'use a fully-qualified DNS name such as s3.example.com';
  if (name.length === 0) return { message: 'is empty', hint };
  if (name.length > 253) return { message: `"${name}" is longer than 253 characters`, hint };
  if (name.includes('*')) return { message: `"${name}" is a wildcard`, hint: 'name each host explicitly; Host routing needs exact names' };
  if (IPV4.test(name) || name.includes(':')) return { message: `"${name}" is an IP address or has a port`, hint };
  const labels = name.split('.');
  if (labels.length < 2) return { message: `"${name}" is not fully qualified`, hint };
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined) {
    return { message: `"${name}" has an invalid label "${bad}"`, hint: 'labels are 1-63 of a-z, 0-9 and "-", not starting or ending with "-"' };
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return { message: `"${name}" has a numeric top-level label`, hint };
  return undefined;
}

const EMAIL = /^[^\s@"<>()[\],;:]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

/** An ACME account contact address (RFC 8555 §7.3 uses mailto: contacts). */
export function checkEmail(email: string): RuleFailure | undefined {
  if (!EMAIL.test(email)) return { message: `"${email}" is not an email address`, hint: 'give a mailbox the CA can send expiry notices to, e.g. ops@example.com' };
  return undefined;
}

/** An ACME directory URL: RFC 8555 §6.1 requires HTTPS. */
export function checkDirectoryUrl(url: string): RuleFailure | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { message: `"${url}" is not a URL`, hint: 'e.g. https://acme-v02.api.letsencrypt.org/directory' };
  }
  if (parsed.protocol !== 'https:') return { message: `"${url}" is not an https URL`, hint: 'ACME directories are served over HTTPS (RFC 8555 §6.1)' };
  return undefined;
}

// Docker reference grammar (distribution/reference): [domain[:port]/]path[:tag][@digest], where the
// first component is a domain only if it has a "." or ":" or is "localhost".
const DOMAIN = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::\d+)?$/;
const PATH_TAG = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::\w[\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

/** A container image reference as docker accepts it. */
export function checkImageRef(ref: string): RuleFailure | undefined {
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  const hasDomain = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
  const ok = ref.length > 0 && ref.length <= 255 && (hasDomain ? DOMAIN.test(first) && PATH_TAG.test(ref.slice(slash + 1)) : PATH_TAG.test(ref));
  if (!ok) {
    return { message: `"${ref}" is not a valid image reference`, hint: 'use name[:tag] or registry/name[:tag], lowercase, e.g. svc/server:latest' };
  }
  return undefined;
}

/** A relative path inside the deployment directory (no absolute path, no `..`). */
export function checkRelativePath(path: string): RuleFailure | undefined {
  const hint = 'give a path relative to the directory of deploy-kit.yaml, e.g. certs/site.pem';
  if (path.length === 0) return { message: 'is empty', hint };
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) return { message: `"${path}" is absolute`, hint };
  if (path.split(/[\\/]/).includes('..')) return { message: `"${path}" leaves the deployment directory`, hint };
  if (/[\s:$"']/.test(path)) return { message: `"${path}" contains whitespace, ":", "$" or quotes`, hint: 'compose volume syntax and proxy configs cannot carry these characters safely' };
  return undefined;
}

/**
 * The combined PEM sits in a folder of its own (e.g. certs/site.pem): the proxy mounts that folder read-only, so a
 * rotation can rename a complete new file into it (a single-file bind mount pins the old inode). A PEM at the top
 * of the deployment directory would mount the whole directory, .env included, into the proxy.
 */
export function checkPemInFolder(path: string): RuleFailure | undefined {
  const parts = path.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  if (parts.length < 2) {
    return { message: `"${path}" is not inside a folder`, hint: 'put the PEM in a folder that holds only certificates, e.g. certs/site.pem: the proxy mounts that folder' };
  }
  return undefined;
}

/** An integer in [min, max]. */
export function checkIntRange(value: number, min: number, max: number): RuleFailure | undefined {
  if (!Number.isInteger(value) || value < min || value > max) {
    return { message: `${String(value)} is not an integer between ${min} and ${max}`, hint: `use a whole number from ${min} to ${max}` };
  }
  return undefined;
}

/** Largest parity allowed for a deployment: half of all drives (SPEC §1, erasure coding). */
export function maxParity(nodes: number, drivesPerNode: number): number {
  return Math.floor((nodes * drivesPerNode) / 2);
}
