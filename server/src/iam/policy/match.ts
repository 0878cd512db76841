import { BlockList, isIP } from 'node:net';

/**
 * Matching helpers of policy evaluation: IAM wildcards (`*` any run, `?` one character, nothing else is
 * special: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html)
 * and CIDR blocks for aws:SourceIp.
 */

/** True when `value` matches the IAM wildcard `pattern`; `ignoreCase` for action names. */
export function iamWildcardMatch(pattern: string, value: string, ignoreCase = false): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const v = ignoreCase ? value.toLowerCase() : value;
  // Iterative glob with single-star backtracking: linear-ish, no regular expression built from input.
  let pi = 0;
  let vi = 0;
  let starP = -1;
  let starV = 0;
  while (vi < v.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === v[vi])) {
      pi++;
      vi++;
    } else if (pi < p.length && p[pi] === '*') {
      starP = pi++;
      starV = vi;
    } else if (starP !== -1) {
      pi = starP + 1;
      vi = ++starV;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

/** A parsed CIDR block (`10.0.0.0/8`, `2001:db8::/32`, or a bare address meaning /32 or /128). */
export interface CidrBlock {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** Parses a CIDR block, or returns undefined when it is not one. */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { address, prefix: Number(prefixText), family };
}

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, what a dual-stack socket reports) as plain IPv4. */
function unmapped(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m === null ? ip : m[1]!;
}

/** True when `ip` lies in `block`; false for anything that is not an IP address. */
export function ipInCidr(ip: string, block: CidrBlock): boolean {
  const addr = unmapped(ip);
  const version = isIP(addr);
  if (version === 0 || (version === 4 ? 'ipv4' : 'ipv6') !== block.family) return false;
  const list = new BlockList();
  list.addSubnet(block.address, block.prefix, block.family);
  return list.check(addr, block.family);
}
