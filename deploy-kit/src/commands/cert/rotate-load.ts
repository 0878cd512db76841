/** The compose side of `cert rotate`: the running proxy container, and recreating it (see certs/acme/proxy-load.ts). */
import { mustCompose, runCompose, tailLines } from '../../compose/index.js';
import type { ComposeProject } from '../../compose/index.js';
import { DeployKitError } from '../../errors.js';
import type { Exec } from '../../io/index.js';
import { SERVICE_NAMES } from '../../providers/index.js';

/** The running proxy container of a compose project, or undefined when it is not running. */
export async function findProxyContainer(exec: Exec, project: ComposeProject): Promise<string | undefined> {
  const r = await runCompose(exec, project, ['ps', '-q', SERVICE_NAMES.proxy], 60_000);
  if (r.notFound) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `${project.tool.file} is not installed`, { hint: 'install Docker and compose' });
  }
  if (r.exitCode !== 0) {
    throw new DeployKitError('DK_ERR_EXTERNAL_TOOL', `cannot list the containers of project ${project.project} (exit ${r.exitCode})`, {
      hint: 'is the Docker engine running?', details: tailLines(r.stderr, 10),
    });
  }
  const id = r.stdout.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (id === undefined) return undefined;
  const running = await exec.run('docker', ['inspect', '-f', '{{.State.Running}}', id], { timeoutMs: 30_000 });
  return running.exitCode === 0 && running.stdout.trim() === 'true' ? id : undefined;
}

/** Recreates the proxy container only (the nodes keep running). */
export async function recreateProxy(exec: Exec, project: ComposeProject): Promise<void> {
  await mustCompose(exec, project, ['up', '-d', '--force-recreate', '--no-deps', SERVICE_NAMES.proxy], 300_000);
}
