/** `deploy-kit check`: everything that can be known before `up`, one line per finding, exit 1 on errors. */
import { resolve } from 'node:path';
import { readRawSpec } from '../../config/load.js';
import { comparePlan } from '../../emit/index.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { loadTemplates, planOrThrow } from '../render-pipeline.js';
import { paint, resolveDir } from '../shared.js';
import { checkCertificate } from './cert.js';
import { checkCompose } from './compose.js';
import { viewOfRawSpec } from './context.js';
import type { CheckView } from './context.js';
import { checkDns } from './dns.js';
import { CHECK_AREAS, finding, findingLine } from './finding.js';
import type { CheckFinding } from './finding.js';
import { checkHaproxy } from './haproxy.js';
import { checkModes } from './modes.js';
import { checkPorts } from './ports.js';
import { checkTraefik } from './traefik.js';

/** Options of `check`. */
export interface CheckOptions {
  readonly dir: string | undefined;
  /** Traefik schemas folder; default deps.paths.traefikSchemasDir (itself overridable by DEPLOY_KIT_TRAEFIK_SCHEMAS). */
  readonly schemas: string | undefined;
  readonly templates: string | undefined;
  readonly json: boolean;
}

/** Rendered files that no longer match the spec (edited by hand, or the spec changed without a render). */
async function checkDrift(dir: string, view: CheckView, templatesDir: string, deps: Deps): Promise<CheckFinding[]> {
  if (view.spec === undefined) return [];
  try {
    const plan = planOrThrow(view.spec, await loadTemplates(deps.fs, templatesDir, view.spec));
    return (await comparePlan(plan.files, dir, deps.fs))
      .filter((c) => c.status === 'changed')
      .map((c) => finding.warning('render', `${c.path} differs from what deploy-kit.yaml renders`, 'deploy-kit render --diff shows how; deploy-kit render rewrites it'));
  } catch (err) {
    if (err instanceof DeployKitError) return [finding.warning('render', `cannot compare with a fresh rendering: ${err.message}`, err.hint ?? 'check the templates folder')];
    throw err;
  }
}

/** Runs every check and returns the findings in report order. */
export async function collectFindings(opts: CheckOptions, deps: Deps): Promise<CheckFinding[]> {
  const dir = resolveDir(deps, opts.dir);
  const { raw } = await readRawSpec(deps.fs, dir);
  const { view, findings } = viewOfRawSpec(raw);
  const schemasDir = opts.schemas === undefined ? deps.paths.traefikSchemasDir : resolve(deps.cwd, opts.schemas);
  const templatesDir = opts.templates === undefined ? deps.paths.templatesDir : resolve(deps.cwd, opts.templates);
  findings.push(...await checkDns(view.hosts, deps.dns));
  findings.push(...await checkCertificate(dir, view, deps));
  findings.push(...await checkModes(dir, view, deps.fs));
  findings.push(...await checkCompose(dir, view, deps.fs));
  if (view.proxy === 'haproxy') findings.push(...await checkHaproxy(dir, view, deps));
  if (view.proxy === 'traefik') findings.push(...await checkTraefik(dir, schemasDir, deps.fs));
  findings.push(...await checkDrift(dir, view, templatesDir, deps));
  findings.push(...await checkPorts(deps.net));
  const order = (f: CheckFinding): number => CHECK_AREAS.indexOf(f.area);
  return findings.map((f, i) => ({ f, i })).sort((a, b) => order(a.f) - order(b.f) || a.i - b.i).map((x) => x.f);
}

/** Prints the findings (text or JSON) and fails with DK_ERR_CHECK_FAILED (exit 1) when any is an error. */
export async function runCheck(opts: CheckOptions, deps: Deps): Promise<void> {
  const findings = await collectFindings(opts, deps);
  const errors = findings.filter((f) => f.level === 'error').length;
  const warnings = findings.length - errors;
  if (opts.json) {
    deps.out.stdout(`${JSON.stringify({ ok: errors === 0, errors, warnings, findings }, null, 2)}\n`);
  } else {
    for (const f of findings) deps.out.stdout(`${findingLine(f, deps.out)}\n`);
    deps.out.stdout(errors === 0
      ? `${paint(deps.out, 'green', 'ok')}: no errors${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}\n`
      : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`);
  }
  if (errors > 0) {
    throw new DeployKitError('DK_ERR_CHECK_FAILED', `check found ${errors} error${errors === 1 ? '' : 's'}`, { hint: 'fix each error listed above, then run deploy-kit check again' });
  }
}
