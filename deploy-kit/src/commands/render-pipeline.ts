/**
 * The one path from a validated spec to files on disk, shared by `render` and `init` (commands never import each
 * other, STYLE.md §2): read templates through the Fs port, planRender (pure, RENDER's), then write, print or diff.
 */
import { join } from 'node:path';
import type { DeploymentSpec } from '../config/index.js';
import { applyPlan, comparePlan } from '../emit/index.js';
import type { FileComparison } from '../emit/index.js';
import { DeployKitError } from '../errors.js';
import type { Deps, Fs } from '../io/index.js';
import { CERT_PATHS, RenderError, listTemplateFiles, planRender } from '../render/index.js';
import type { RenderPlan, TemplateSet } from '../render/index.js';
import { octal, paint } from './shared.js';

/** What to do with the plan. */
export type RenderMode = 'write' | 'dry-run' | 'diff';

/** Reads exactly the templates the proxy needs from `templatesDir`. */
export async function loadTemplates(fs: Fs, templatesDir: string, spec: DeploymentSpec): Promise<TemplateSet> {
  const set: Record<string, string> = {};
  const missing: string[] = [];
  for (const rel of listTemplateFiles(spec.proxy)) {
    const text = await fs.readText(join(templatesDir, rel));
    if (text === undefined) missing.push(rel);
    else set[rel] = text;
  }
  if (missing.length > 0) {
    throw new DeployKitError('DK_ERR_TEMPLATES_NOT_FOUND', `missing template${missing.length === 1 ? '' : 's'} in ${templatesDir}`, {
      hint: 'run from a complete deploy-kit checkout, or pass --templates <dir>',
      details: missing,
    });
  }
  return set;
}

/** planRender with RENDER's typed errors mapped to DK_ERR_RENDER_FAILED at this edge. */
export function planOrThrow(spec: DeploymentSpec, templates: TemplateSet): RenderPlan {
  try {
    return planRender(spec, templates);
  } catch (err) {
    if (err instanceof RenderError) {
      throw new DeployKitError('DK_ERR_RENDER_FAILED', `${err.file}: ${err.message}`, { hint: err.hint, cause: err });
    }
    throw err;
  }
}

/**
 * State the proxy owns but deploy-kit must create with the right mode before `up`: Traefik's ACME storage file is
 * created empty with mode 600 (SPEC rule 12; Traefik refuses a wider one), the HAProxy challenge webroot as a directory.
 * Existing files are never touched: acme.json holds issued certificates.
 */
export async function ensureStateFiles(spec: DeploymentSpec, dir: string, fs: Fs): Promise<string[]> {
  if (spec.tls.mode !== 'acme') return [];
  const created: string[] = [];
  if (spec.proxy === 'traefik') {
    await fs.mkdirp(join(dir, CERT_PATHS.acmeStorageDir), 0o700);
    if (await fs.writeNew(join(dir, CERT_PATHS.traefikAcmeStorage), '', 0o600)) created.push(CERT_PATHS.traefikAcmeStorage);
  } else if ((await fs.stat(join(dir, CERT_PATHS.acmeChallengeDir))) === undefined) {
    await fs.mkdirp(join(dir, CERT_PATHS.acmeChallengeDir), 0o755);
    created.push(`${CERT_PATHS.acmeChallengeDir}/`);
  }
  return created;
}

/** What {@link renderDeployment} did or would do. */
export interface RenderOutcome {
  readonly mode: RenderMode;
  readonly files: readonly FileComparison[];
  /** State files created (write mode only). */
  readonly created: readonly string[];
}

/** Renders `spec` into `dir` according to `mode`. */
export async function renderDeployment(spec: DeploymentSpec, dir: string, mode: RenderMode, deps: Pick<Deps, 'fs'>, templatesDir: string): Promise<RenderOutcome> {
  const templates = await loadTemplates(deps.fs, templatesDir, spec);
  const plan = planOrThrow(spec, templates);
  if (mode !== 'write') return { mode, files: await comparePlan(plan.files, dir, deps.fs), created: [] };
  const files = await applyPlan(plan.files, dir, deps.fs);
  const created = await ensureStateFiles(spec, dir, deps.fs);
  return { mode, files, created };
}

const VERB: Readonly<Record<FileComparison['status'], string>> = { new: 'create', changed: 'update', mode: 'chmod', unchanged: 'keep' };

/** Human-readable report of an outcome: one line per file (path, mode, size, action), then diffs in diff mode. */
export function formatOutcome(outcome: RenderOutcome, deps: Pick<Deps, 'out'>): string {
  const lines: string[] = [];
  const tense = outcome.mode === 'write' ? { new: 'created', changed: 'updated', mode: 'chmod', unchanged: 'unchanged' } : VERB;
  for (const f of outcome.files) {
    const action = tense[f.status];
    const tone = f.status === 'unchanged' ? 'dim' : 'green';
    lines.push(`${paint(deps.out, tone, action.padEnd(9))} ${f.path}  (mode ${octal(f.mode)}, ${f.size} bytes)`);
  }
  for (const c of outcome.created) lines.push(`${paint(deps.out, 'green', 'created'.padEnd(9))} ${c}  (mode ${c.endsWith('/') ? '755' : '600'})`);
  if (outcome.mode === 'dry-run') lines.push('dry run: nothing was written');
  let text = `${lines.join('\n')}\n`;
  if (outcome.mode === 'diff') {
    const diffs = outcome.files.filter((f) => f.diff !== '' || f.status === 'mode');
    for (const f of diffs) {
      text += f.status === 'mode' ? `mode ${octal(f.diskMode ?? 0)} -> ${octal(f.mode)} ${f.path}\n` : f.diff;
    }
    if (diffs.length === 0) text += 'no changes\n';
  }
  return text;
}
