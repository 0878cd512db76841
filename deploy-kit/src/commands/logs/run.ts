/** `deploy-kit logs [service]`: the last lines of the deployment's (or one service's) output. */
import { mustCompose, openDeployment } from '../../compose/index.js';
import type { Deps } from '../../io/index.js';
import { resolveDir } from '../shared.js';

/** Options of `logs`. */
export interface LogsOptions {
  readonly dir: string | undefined;
  readonly project: string | undefined;
  readonly service: string | undefined;
  readonly tail: number;
}

/** Prints `compose logs --tail N [service]`. */
export async function runLogs(opts: LogsOptions, deps: Deps): Promise<void> {
  const d = await openDeployment(deps, resolveDir(deps, opts.dir), opts.project);
  const args = ['logs', '--no-color', '--tail', String(opts.tail), ...(opts.service === undefined ? [] : [opts.service])];
  const r = await mustCompose(deps.exec, d.compose, args, 60_000);
  deps.out.stdout(r.stdout);
  if (r.stderr.trim() !== '') deps.out.stderr(r.stderr);
}
