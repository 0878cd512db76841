/**
 * Running Debian's python3-boto3 against a started server (issue 8 Must show 2): one server per test file, each
 * script written to a temp directory and run with /usr/bin/python3 (pyenv shims may shadow `python3`) as
 * `script.py URL ACCESS_KEY SECRET_KEY`. Scripts start with {@link BOTO3_PRELUDE}, which defines `s3`.
 */
import { after, before } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOk, type RunResult } from './run.js';
import { startSvc, type StartOptions, type SvcProcess } from './svc-process.js';

/** Imports and the client every script uses: path-style addressing, SigV4, no retries (a failure shows at once). */
export const BOTO3_PRELUDE = `
import sys, boto3
from botocore.config import Config
from botocore.exceptions import ClientError
url, ak, sk = sys.argv[1:4]
s3 = boto3.client('s3', endpoint_url=url, aws_access_key_id=ak, aws_secret_access_key=sk, region_name='us-east-1',
                  config=Config(s3={'addressing_style': 'path'}, signature_version='s3v4', retries={'max_attempts': 1}))
`;

/** A server started before the file's tests and stopped after them, and a way to run scripts against it. */
export interface Boto3Suite {
  svc(): SvcProcess;
  /** Writes `script` as `<name>.py` and runs it; rejects with its output when it exits non-zero. */
  run(name: string, script: string): Promise<RunResult>;
}

/** Registers the file's before/after hooks (call at module level). */
export function boto3Suite(name: string, opts: StartOptions = { drives: 4 }): Boto3Suite {
  let svc: SvcProcess | undefined;
  let work: string | undefined;
  before(async () => {
    svc = await startSvc(opts);
    work = mkdtempSync(join(tmpdir(), `svc-boto3-${name}-`));
  });
  after(async () => {
    await svc?.stop();
    svc?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true, maxRetries: 5 });
  });
  return {
    svc: () => svc!,
    async run(file, script) {
      const path = join(work!, `${file}.py`);
      writeFileSync(path, script);
      return runOk('/usr/bin/python3', [path, svc!.url, svc!.accessKey, svc!.secretKey]);
    },
  };
}
