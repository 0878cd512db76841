/** Runs the real `haproxy -c` on a rendered config, with a throwaway self-signed PEM made by openssl. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTAINER_PATHS } from '../../src/providers/index.js';

/** Result of one `haproxy -c`. */
export interface HaproxyCheck {
  status: number | null;
  output: string;
}

/** Writes cfg + a fresh PEM to a temp dir, points the cfg at it, runs `haproxy -c -f`. */
export function haproxyCheck(cfg: string): HaproxyCheck {
  const dir = mkdtempSync(join(tmpdir(), 'dk-haproxy-'));
  try {
    const key = join(dir, 'key.pem');
    const crt = join(dir, 'crt.pem');
    const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '1', '-subj', '/CN=s3.example.com',
      '-addext', 'subjectAltName=DNS:s3.example.com,DNS:console.example.com'], { encoding: 'utf8' });
    if (gen.status !== 0) throw new Error(`openssl failed: ${gen.stderr}`);
    const pem = join(dir, 'site.pem');
    writeFileSync(pem, readFileSync(crt, 'utf8') + readFileSync(key, 'utf8'), { mode: 0o600 });
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, cfg.split(CONTAINER_PATHS.haproxyPem).join(pem));
    const r = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8' });
    if (r.error) throw r.error;
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Warnings other than the expected "could not resolve address" (nodes only resolve inside compose). */
export function unexpectedWarnings(output: string): string[] {
  return output.split('\n').filter((l) => l.includes('[WARNING]') && !l.includes('could not resolve address'));
}
