/** init's questions on a terminal (@inquirer/prompts behind the Prompter port): only for what flags did not give. */
import { checkEmail, checkHostname } from '../../config/index.js';
import type { SpecAnswers } from '../../config/index.js';
import type { Prompter } from '../../io/index.js';
import type { CertInput } from './answers.js';

/** The prompt texts, exported so PTY tests can wait for them. */
export const PROMPTS = {
  s3Host: 'S3 API hostname',
  consoleHost: 'Console hostname',
  proxy: 'Reverse proxy',
  tls: 'Certificates',
  acmeEmail: 'ACME account e-mail',
  staging: 'Use the ACME staging CA (a rehearsal without rate limits)?',
  certFile: 'Certificate chain or combined PEM file (empty: add one later)',
  keyFile: 'Private key file',
  nodes: 'Number of nodes',
  drivesPerNode: 'Drives per node',
} as const;

function rule(check: (v: string) => { message: string } | undefined): (v: string) => true | string {
  return (v) => check(v.trim())?.message ?? true;
}

function count(v: string): true | string {
  return /^\d+$/.test(v.trim()) && Number(v) >= 1 ? true : 'enter a whole number of at least 1';
}

/** What the user was asked, so run can tell prompts from flags. */
export interface Asked {
  readonly answers: SpecAnswers;
  readonly cert: CertInput;
}

/**
 * Asks for every missing value; `askCluster` adds the node/drive questions (with defaults) when neither flags nor an
 * existing spec gave them. `certKeyInFile` tells whether a chain file already holds the key.
 */
export async function askMissing(
  a: SpecAnswers,
  cert: CertInput,
  prompter: Prompter,
  opts: { askCluster: boolean; askStaging: boolean; hasKey: (path: string) => Promise<boolean> },
): Promise<Asked> {
  const answers: SpecAnswers = { ...a };
  if (answers.s3Host === undefined) {
    answers.s3Host = (await prompter.input({ message: PROMPTS.s3Host, validate: rule(checkHostname) })).trim();
  }
  if (answers.consoleHost === undefined) {
    const s3 = answers.s3Host;
    answers.consoleHost = (await prompter.input({
      message: PROMPTS.consoleHost,
      validate: (v) => (v.trim() === s3 ? 'must differ from the S3 hostname (SPEC §4 rule 1)' : rule(checkHostname)(v)),
    })).trim();
  }
  if (answers.proxy === undefined) {
    answers.proxy = await prompter.select({
      message: PROMPTS.proxy,
      choices: [{ value: 'traefik', name: 'traefik (Traefik v3)' }, { value: 'haproxy', name: 'haproxy (HAProxy 2.6)' }],
    });
  }
  if (answers.tls === undefined) {
    answers.tls = await prompter.select({
      message: PROMPTS.tls,
      choices: [
        { value: 'acme', name: 'acme (automatic, HTTP-01 on port 80)' },
        { value: 'pem', name: 'pem (your own certificate file)' },
      ],
    });
  }
  let certInput = cert;
  if (answers.tls === 'acme') {
    if (answers.acmeEmail === undefined) {
      answers.acmeEmail = (await prompter.input({ message: PROMPTS.acmeEmail, validate: rule(checkEmail) })).trim();
    }
    if (opts.askStaging && answers.staging === undefined) {
      answers.staging = await prompter.confirm({ message: PROMPTS.staging, default: false });
    }
  } else if (certInput.kind === 'none') {
    const file = (await prompter.input({ message: PROMPTS.certFile, default: '' })).trim();
    if (file !== '') {
      if (await opts.hasKey(file)) certInput = { kind: 'combined', pem: file };
      else certInput = { kind: 'pair', cert: file, key: (await prompter.input({ message: PROMPTS.keyFile, validate: (v) => v.trim() !== '' || 'enter a path' })).trim() };
    }
  }
  if (opts.askCluster) {
    answers.nodes = Number(await prompter.input({ message: PROMPTS.nodes, default: String(answers.nodes ?? 1), validate: count }));
    answers.drivesPerNode = Number(await prompter.input({ message: PROMPTS.drivesPerNode, default: String(answers.drivesPerNode ?? 1), validate: count }));
  }
  return { answers, cert: certInput };
}
