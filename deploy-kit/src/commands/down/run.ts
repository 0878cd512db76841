/** `deploy-kit down [--volumes]`: stops and removes the project's containers (and its data volumes with --volumes). */
import { join } from 'node:path';
import { PUBLISHED_COMPOSE_FILE, mustCompose, openDeployment } from '../../compose/index.js';
import type { Deps } from '../../io/index.js';
import { resolveDir } from '../shared.js';

/** Options of `down`. */
export interface DownOptions {
  readonly dir: string | undefined;
  readonly project: string | undefined;
  /** Also remove the named volumes: every object stored is lost. */
  readonly volumes: boolean;
}

/** Runs `compose down` for the deployment. */
export async function runDown(opts: DownOptions, deps: Deps): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const d = await openDeployment(deps, dir, opts.project);
  // -t 10: the server stops on SIGTERM; compose's default wait is the same, but v1 and v2 agree only when it is given.
  await mustCompose(deps.exec, d.compose, ['down', '--remove-orphans', '-t', '10', ...(opts.volumes ? ['--volumes'] : [])], 300_000);
  await deps.fs.remove(join(dir, PUBLISHED_COMPOSE_FILE));
  deps.out.stdout(`project ${d.compose.project} is down${opts.volumes ? ' (volumes removed: the stored data is gone)' : ' (data volumes kept)'}\n`);
}
