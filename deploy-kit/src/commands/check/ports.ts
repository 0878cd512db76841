/** The proxy must bind 80 and 443 on this host (SPEC rules 6, 9 and 12). */
import type { Net } from '../../io/index.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';

/** Warns for each of 80/443 that cannot be bound now. */
export async function checkPorts(net: Net, ports: readonly number[] = [80, 443]): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  for (const port of ports) {
    const state = await net.probePort(port);
    if (state === 'busy') {
      out.push(finding.warning('ports', `port ${port} is already in use on this host`,
        `stop what listens on it (ss -ltnp 'sport = :${port}'), unless it is this deployment's proxy already running`));
    } else if (state === 'denied') {
      out.push(finding.warning('ports', `port ${port} cannot be bound by this user`, 'run check as the user that runs docker (usually root)'));
    }
  }
  return out;
}
