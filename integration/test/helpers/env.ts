/**
 * The integration suite's environment (DOCKER.md §5, §7): a Docker engine is required (the suite fails, never skips,
 * without one), Ryuk is off (a registry pull), testcontainers addresses published ports on loopback, and every
 * container and network a test creates carries this run's label so scripts/test.sh can reap leftovers.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

process.env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';
process.env['TESTCONTAINERS_HOST_OVERRIDE'] ??= '127.0.0.1';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Local images built by scripts/docker-engine.sh (no registry is ever used). */
export const BASE_IMAGES = {
  debian: 'svc-test/debian:bookworm',
  haproxy: 'svc-test/haproxy:2.6',
  node: 'svc-test/node:20',
} as const;

/** This test run's id (scripts/test.sh exports one; a direct run makes its own). */
export const RUN_ID = process.env['SVC_TEST_RUN_ID'] ?? `svc-test-local-${process.pid}`;

/** Labels for every container and network a test creates. */
export const RUN_LABELS: Readonly<Record<string, string>> = { 'svc-test.run': RUN_ID };

/** Throws (so the test fails) when no Docker engine answers; never a skip (issue 7). */
export function requireDocker(): void {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 20_000 });
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new Error(`no Docker engine reachable (${msg}); run scripts/docker-engine.sh (as root) before the integration suite`);
  }
}

/** Runs docker and returns stdout; throws with stderr on failure. */
export function docker(args: readonly string[], timeoutMs = 120_000): string {
  return execFileSync('docker', [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
}
