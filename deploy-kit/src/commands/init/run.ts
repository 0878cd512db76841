/**
 * `deploy-kit init`: values from flags (and prompts on a terminal), then deploy-kit.yaml, .env with generated secrets
 * (mode 600, never overwritten), .gitignore, the imported certificate, and a render through the same path as `render`.
 */
import { join, resolve } from 'node:path';
import { assembleCombinedPem, inspectCombinedPem, parseCombinedPem, storeCertificate } from '../../certs/index.js';
import { SPEC_FILE_NAME, formatSpec, parseSpec } from '../../config/index.js';
import type { DeploymentSpec, SpecAnswers } from '../../config/index.js';
import { readRawSpec } from '../../config/load.js';
import { DeployKitError } from '../../errors.js';
import type { Deps } from '../../io/index.js';
import { certLayoutFor } from '../cert-layout.js';
import { formatOutcome, renderDeployment } from '../render-pipeline.js';
import { octal, resolveDir } from '../shared.js';
import {
  answersFromOptions, answersFromSpec, certInputFromOptions, initProblemLine, missingRequired, validateAnswers,
} from './answers.js';
import type { CertInput, InitOptions, InitProblem } from './answers.js';
import { askMissing } from './prompts.js';
import { mergeEnv, mergeGitignore } from './secrets.js';

const ENV_FILE = '.env';
const GITIGNORE_FILE = '.gitignore';

async function existingSpec(deps: Deps, dir: string): Promise<DeploymentSpec | undefined> {
  try {
    return parseSpec((await readRawSpec(deps.fs, dir)).raw).spec;
  } catch (err) {
    if (err instanceof DeployKitError) return undefined;
    throw err;
  }
}

/** Reads, assembles and validates the certificate; problems are named by the flag that gave it. */
async function prepareCertificate(cert: CertInput, spec: DeploymentSpec, deps: Deps): Promise<{ text?: string; problems: InitProblem[]; warnings: string[] }> {
  if (cert.kind === 'none') return { problems: [], warnings: [] };
  const flag = cert.kind === 'pair' ? '--cert' : '--pem';
  const paths = cert.kind === 'pair' ? [cert.cert, cert.key] : [cert.pem];
  const texts: string[] = [];
  const problems: InitProblem[] = [];
  for (const [i, p] of paths.entries()) {
    const text = await deps.fs.readText(resolve(deps.cwd, p));
    if (text === undefined) problems.push({ flag: cert.kind === 'pair' && i === 1 ? '--key' : flag, message: `cannot read ${p}`, hint: 'check the path' });
    else texts.push(text);
  }
  if (problems.length > 0) return { problems, warnings: [] };
  const assembled = assembleCombinedPem(texts);
  if (!assembled.ok) return { problems: assembled.problems.map((m) => ({ flag, message: m })), warnings: [] };
  const report = inspectCombinedPem(assembled.text, { hosts: [spec.hosts.s3, spec.hosts.console], now: deps.clock.now() });
  return {
    text: assembled.text,
    problems: report.findings.filter((f) => f.severity === 'error').map((f) => ({ flag, message: f.message, hint: f.hint })),
    warnings: report.findings.filter((f) => f.severity === 'warning').map((f) => `${f.message} (fix: ${f.hint})`),
  };
}

/** Runs init; throws DK_ERR_MISSING_OPTIONS listing every missing or invalid value. */
export async function runInit(opts: InitOptions, deps: Deps): Promise<void> {
  const dir = resolveDir(deps, opts.dir);
  const previous = await existingSpec(deps, dir);
  const base: SpecAnswers = previous === undefined ? {} : answersFromSpec(previous);
  const fromFlags = answersFromOptions(opts, base);
  const certFlags = certInputFromOptions(opts);
  let answers = fromFlags.answers;
  let cert = certFlags.input;
  if (deps.out.isTTY) {
    const asked = await askMissing(answers, cert, deps.prompter, {
      askCluster: previous === undefined && opts.nodes === undefined && opts.drivesPerNode === undefined,
      askStaging: previous === undefined && opts.staging === undefined && opts.acmeDirectory === undefined,
      hasKey: async (p) => parseCombinedPem((await deps.fs.readText(resolve(deps.cwd, p))) ?? '').keys.length > 0,
    });
    answers = asked.answers;
    cert = asked.cert;
  }
  const problems: InitProblem[] = [...fromFlags.problems, ...certFlags.problems, ...missingRequired(answers)];
  if (answers.tls === 'acme' && cert.kind !== 'none') {
    problems.push({ flag: cert.kind === 'pair' ? '--cert' : '--pem', message: 'only applies to --tls pem', hint: 'drop it, or use --tls pem' });
  }
  const validated = validateAnswers(answers, problems);
  problems.push(...validated.problems);
  const certificate = validated.spec === undefined ? { problems: [], warnings: [] } : await prepareCertificate(cert, validated.spec, deps);
  problems.push(...certificate.problems);
  if (validated.spec === undefined || problems.length > 0) {
    throw new DeployKitError('DK_ERR_MISSING_OPTIONS', `${problems.length} value${problems.length === 1 ? '' : 's'} missing or invalid`, {
      hint: deps.out.isTTY ? 'fix them and run init again' : 'pass them as flags (there is no terminal to ask on); see deploy-kit init --help',
      details: problems.map(initProblemLine),
    });
  }
  const spec = validated.spec;
  const report: string[] = [];

  await deps.fs.mkdirp(dir);
  await deps.fs.writeAtomic(join(dir, SPEC_FILE_NAME), formatSpec(spec), 0o644);
  report.push(`wrote ${SPEC_FILE_NAME}`);

  const envPath = join(dir, ENV_FILE);
  const envBefore = await deps.fs.readText(envPath);
  const env = mergeEnv(envBefore);
  if (envBefore === undefined) {
    await deps.fs.writeNew(envPath, env.text, 0o600);
    report.push(`wrote ${ENV_FILE} with generated ${env.added.join(', ')} (mode 600)`);
  } else if (env.added.length > 0) {
    await deps.fs.writeAtomic(envPath, env.text, 0o600);
    report.push(`added ${env.added.join(', ')} to ${ENV_FILE}; existing values kept (mode 600)`);
  } else {
    report.push(`kept ${ENV_FILE}: every secret already set`);
  }
  const envMode = (await deps.fs.stat(envPath))?.mode;
  if (envMode !== undefined && envMode !== 0o600) {
    await deps.fs.chmod(envPath, 0o600);
    report.push(`tightened ${ENV_FILE} from mode ${octal(envMode)} to 600`);
  }

  const giPath = join(dir, GITIGNORE_FILE);
  const giBefore = await deps.fs.readText(giPath);
  const gi = mergeGitignore(giBefore);
  if (gi.added.length > 0) {
    await deps.fs.writeAtomic(giPath, gi.text, (await deps.fs.stat(giPath))?.mode ?? 0o644);
    report.push(`${giBefore === undefined ? 'wrote' : 'updated'} ${GITIGNORE_FILE} (${gi.added.join(', ')} kept out of git)`);
  }

  const layout = certLayoutFor(spec);
  if (certificate.text !== undefined) {
    const parts = parseCombinedPem(certificate.text);
    await storeCertificate(deps.fs, dir, layout, { chainPem: parts.certificates.join(''), keyPem: parts.keys[0] as string });
    report.push(`imported the certificate into ${layout.combined} (chain first, then key; mode 600)`);
  }
  for (const w of certificate.warnings) deps.out.stderr(`warning: ${w}\n`);
  const missingCert = spec.tls.mode === 'pem' && (await deps.fs.stat(join(dir, layout.combined))) === undefined;

  const templatesDir = opts.templates === undefined ? deps.paths.templatesDir : resolve(deps.cwd, opts.templates);
  const outcome = await renderDeployment(spec, dir, 'write', deps, templatesDir);

  if (opts.json) {
    deps.out.stdout(`${JSON.stringify({
      dir, spec, steps: report, certificateMissing: missingCert,
      files: outcome.files.map((f) => ({ path: f.path, mode: f.mode, size: f.size, status: f.status })), created: outcome.created,
    }, null, 2)}\n`);
  } else {
    deps.out.stdout(`${report.join('\n')}\n${formatOutcome(outcome, deps)}`);
    deps.out.stdout(`next: deploy-kit check --dir ${opts.dir ?? '.'}, then docker compose up -d\n`);
  }
  if (missingCert) {
    deps.out.stderr(`warning: no certificate at ${layout.combined} yet (fix: deploy-kit cert import --cert <chain.pem> --key <key.pem>, or deploy-kit cert self-signed to try things out)\n`);
  }
}
