/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for the console's browser tests
 * (issue 6), and the console's front end built once if the build is missing or older than its sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const SERVER = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
/** Where the built console lives. */
export const CONSOLE_DIST = join(SERVER, 'dist', 'console');
const SOURCES = join(SERVER, 'console');

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

/** Builds server/console into server/dist/console unless the build is newer than every source file. */
export function ensureConsoleBuilt(): void {
  const index = join(CONSOLE_DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newest(SOURCES)) return;
  execFileSync(process.execPath, [join(SERVER, '..', 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(SOURCES, 'vite.config.ts')], { stdio: 'pipe' });
}

/** Screenshots of the browser tests are kept here (printed by the tests). */
export const ARTIFACTS = join(tmpdir(), 'svc-console-artifacts');

/** Launches headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Saves a screenshot named `name` into {@link ARTIFACTS}. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Signs in through the form and waits for the header to show the user. */
export async function signIn(page: Page, consoleUrl: string, accessKey: string, secretKey: string): Promise<void> {
  await page.goto(`${consoleUrl}/svc/console/`);
  await page.getByLabel('Access key').fill(accessKey);
  await page.getByLabel('Secret key').fill(secretKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByTestId('user').waitFor();
}
