/** The compose side of `cert rotate`: recreating the proxy (see certs/acme/proxy-load.ts); finding it is in ../shared.ts. */
import { mustCompose } from '../../compose/index.js';
import type { ComposeProject } from '../../compose/index.js';
import type { Exec } from '../../io/index.js';
import { SERVICE_NAMES } from '../../providers/index.js';

/** Recreates the proxy container only (the nodes keep running). */
export async function recreateProxy(exec: Exec, project: ComposeProject): Promise<void> {
  await mustCompose(exec, project, ['up', '-d', '--force-recreate', '--no-deps', SERVICE_NAMES.proxy], 300_000);
}
