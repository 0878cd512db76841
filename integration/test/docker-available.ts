import { execFileSync } from 'node:child_process';

/** True when a Docker engine answers; the integration suite needs one (DOCKER.md §7). */
export function dockerAvailable(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
