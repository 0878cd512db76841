/** `deploy-kit render`: spec → templates → planRender → atomic writes, or a dry-run / diff report. */
import { resolve } from 'node:path';
import { loadSpec } from '../../config/load.js';
import type { Deps } from '../../io/index.js';
import { formatOutcome, renderDeployment } from '../render-pipeline.js';
import type { RenderMode } from '../render-pipeline.js';
import { resolveDir } from '../shared.js';

/** Options of `render`. */
export interface RenderOptions {
  readonly dir: string | undefined;
  readonly mode: RenderMode;
  /** Templates folder override; default deps.paths.templatesDir. */
  readonly templates: string | undefined;
  readonly json: boolean;
}

/** Renders the deployment in `opts.dir`. */
export async function runRender(opts: RenderOptions, deps: Deps): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const { spec } = await loadSpec(deps.fs, dir);
  const templatesDir = opts.templates === undefined ? deps.paths.templatesDir : resolve(deps.cwd, opts.templates);
  const outcome = await renderDeployment(spec, dir, opts.mode, deps, templatesDir);
  if (opts.json) {
    deps.out.stdout(`${JSON.stringify({
      mode: outcome.mode,
      files: outcome.files.map((f) => ({ path: f.path, mode: f.mode, size: f.size, status: f.status, ...(outcome.mode === 'diff' ? { diff: f.diff } : {}) })),
      created: outcome.created,
    }, null, 2)}\n`);
    return;
  }
  deps.out.stdout(formatOutcome(outcome, deps));
}
