/**
 * HTTP-01 challenge files in the deployment's acme/challenges/ (CERT_PATHS.acmeChallengeDir), the folder the
 * acme-responder service serves read-only under /.well-known/acme-challenge/ (docs/rendering.md, rule 12).
 */
import { join } from 'node:path';
import { DeployKitError } from '../../errors.js';
import type { Fs } from '../../io/index.js';
import type { ChallengeWebroot } from './ca-port.js';

/** Key authorizations are public by design (the CA fetches them over plain HTTP), and the responder must read them. */
const CHALLENGE_FILE_MODE = 0o644;
const CHALLENGE_DIR_MODE = 0o755;

/** RFC 8555 §8.1: a token is base64url, so it can never name a path outside the webroot. */
const TOKEN = /^[A-Za-z0-9_-]{1,256}$/;

function checkToken(token: string): void {
  if (!TOKEN.test(token)) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', 'the ACME CA sent a challenge token that is not base64url', {
      hint: 'the directory URL may not point at an ACME server',
    });
  }
}

/** A {@link ChallengeWebroot} writing `<dir>/<token>` files through the Fs port. */
export function createFsWebroot(fs: Fs, dir: string): ChallengeWebroot {
  return {
    async put(token, keyAuthorization) {
      checkToken(token);
      await fs.mkdirp(dir, CHALLENGE_DIR_MODE);
      await fs.writeAtomic(join(dir, token), keyAuthorization, CHALLENGE_FILE_MODE);
    },
    async remove(token) {
      checkToken(token);
      await fs.remove(join(dir, token));
    },
  };
}
