/**
 * Virtual-hosted-style addressing (https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html):
 * with the server's domains configured (SVC_DOMAIN, like MINIO_DOMAIN), a request to `bucket.<domain>`
 * addresses `bucket`, and its path is the key. Any other Host (the bare domain, an IP, localhost) keeps
 * path-style addressing. Pure: no I/O.
 */

// A DNS-style bucket label sequence; anything else in front of a domain is not taken as a bucket.
const BUCKET_LABELS = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/** Lower-cased domains, longest first (so `s3.example.com` wins over `example.com`), without empties or trailing dots. */
export function normalizeDomains(domains: readonly string[]): string[] {
  const out = new Set<string>();
  for (const d of domains) {
    const v = d.trim().toLowerCase().replace(/\.+$/, '');
    if (v !== '') out.add(v);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** The Host header without its port (IPv6 literals keep their brackets), lower-cased. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, '');
}

/** The bucket addressed by `host` under one of `domains` (already normalized), or undefined for path style. */
export function virtualHostBucket(host: string | undefined, domains: readonly string[]): string | undefined {
  if (host === undefined || domains.length === 0) return undefined;
  const name = hostName(host);
  // A Host that is itself one of the domains is the path-style endpoint, even when another domain is its suffix.
  if (domains.includes(name)) return undefined;
  for (const domain of domains) {
    if (name.length > domain.length + 1 && name.endsWith(`.${domain}`)) {
      const bucket = name.slice(0, name.length - domain.length - 1);
      return BUCKET_LABELS.test(bucket) ? bucket : undefined;
    }
  }
  return undefined;
}

/**
 * The path-style raw path for a virtual-hosted request: `/bucket` + the request path (`/` alone addresses
 * the bucket itself). The original path is still what the signature covers.
 */
export function pathStylePath(bucket: string, rawPath: string): string {
  if (!rawPath.startsWith('/')) return rawPath;
  return rawPath === '/' ? `/${bucket}` : `/${bucket}${rawPath}`;
}
