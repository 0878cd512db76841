/** The containers of a compose project and their state, for `up`'s failure report and `status` (docker inspect). */
import type { Exec } from '../io/index.js';
import { runCompose } from './tool.js';
import type { ComposeProject } from './tool.js';

/** One container of the project. */
export interface ContainerState {
  readonly id: string;
  readonly name: string;
  readonly service: string;
  /** `running`, `exited`, `paused`, `restarting`… */
  readonly status: string;
  /** `healthy`, `unhealthy`, `starting`, or '' without a health check. */
  readonly health: string;
}

// .State as JSON: a Go template on .State.Health fails for containers without a health check.
const FORMAT = '{{.Id}}|{{.Name}}|{{index .Config.Labels "com.docker.compose.service"}}|{{json .State}}';

function stateOf(json: string): { status: string; health: string } {
  try {
    const s = JSON.parse(json) as { Status?: string; Health?: { Status?: string } };
    return { status: s.Status ?? '', health: s.Health?.Status ?? '' };
  } catch {
    return { status: 'unknown', health: '' };
  }
}

/** Every container of the project (stopped ones too); [] when none or docker cannot say. */
export async function listContainers(exec: Exec, p: ComposeProject): Promise<ContainerState[]> {
  const ps = await runCompose(exec, p, ['ps', '-a', '-q'], 30_000);
  const ids = ps.exitCode === 0 ? ps.stdout.split('\n').map((s) => s.trim()).filter((s) => s !== '') : [];
  if (ids.length === 0) return [];
  const r = await exec.run('docker', ['inspect', '--format', FORMAT, ...ids], { timeoutMs: 30_000 });
  return r.stdout.split('\n').filter((l) => l.includes('|')).map((l) => {
    const [id = '', name = '', service = '', ...rest] = l.trim().split('|');
    return { id, name: name.replace(/^\//, ''), service, ...stateOf(rest.join('|')) };
  });
}

/** The container that most likely explains a failed start: not running, else unhealthy, else still starting. */
export function failingContainer(states: readonly ContainerState[]): ContainerState | undefined {
  return states.find((s) => s.status !== 'running')
    ?? states.find((s) => s.health === 'unhealthy')
    ?? states.find((s) => s.health === 'starting');
}
