/** SPEC §4 rule 1: both hostnames resolve to the proxy host. Offline machines are warned, never failed, on DNS alone. */
import type { Dns } from '../../io/index.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';

/** Resolves every hostname and compares the answers with this host's addresses. */
export async function checkDns(hosts: readonly string[], dns: Dns): Promise<CheckFinding[]> {
  const local = new Set(dns.localAddresses().map((a) => a.toLowerCase()));
  const out: CheckFinding[] = [];
  for (const host of hosts) {
    const r = await dns.lookup(host);
    if (!r.ok) {
      out.push(finding.warning('dns', `${host} does not resolve (${r.code})`,
        `create an A/AAAA record for ${host} pointing at this host; ACME HTTP-01 and clients need it, SPEC rule 12`));
    } else if (!r.addresses.some((a) => local.has(a.toLowerCase()))) {
      out.push(finding.warning('dns', `${host} resolves to ${r.addresses.join(', ')}, not to an address of this host`,
        `point ${host} at this host (or at the load balancer in front of it)`));
    }
  }
  return out;
}
