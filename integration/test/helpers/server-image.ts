/**
 * The svc server image under test, built with `deploy-kit images build` on the local scratch Node base. The tag is
 * a hash of the built server and the lockfile, so an unchanged server is never rebuilt and a changed one always is.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_IMAGES, REPO_ROOT, docker } from './env.js';
import { runDeployKit } from './deploy-kit.js';

function hashTree(dir: string, h: ReturnType<typeof createHash>): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) hashTree(p, h);
    else if (!name.endsWith('.map') && !name.includes('.test.')) h.update(name).update(readFileSync(p));
  }
}

let pending: Promise<string> | undefined;

/** The tag of the server image for the current build, building it when missing (once per process). */
export function serverImage(): Promise<string> {
  pending ??= (async () => {
    const h = createHash('sha256');
    hashTree(join(REPO_ROOT, 'server/dist/src'), h);
    hashTree(join(REPO_ROOT, 'server/bin'), h);
    h.update(readFileSync(join(REPO_ROOT, 'package-lock.json'))).update(readFileSync(join(REPO_ROOT, 'Dockerfile')));
    const tag = `svc-test/server:${h.digest('hex').slice(0, 12)}`;
    try {
      docker(['image', 'inspect', '--format', '{{.Id}}', tag]);
      return tag;
    } catch {
      // not built yet
    }
    const r = await runDeployKit(['images', 'build', '--tag', tag, '--base-image', BASE_IMAGES.node], { cwd: REPO_ROOT });
    if (r.code !== 0) throw new Error(`deploy-kit images build failed (${r.code}): ${r.stderr}`);
    return tag;
  })();
  return pending;
}
