/**
 * The built front end (server/console → dist/console), read once into memory (it is small) and served with
 * validators. Files under `assets/` carry a content hash in their name, so they are cached as immutable; the
 * page itself is always revalidated so a new version is picked up.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

/** One file ready to serve. */
export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8', '.map': 'application/json',
};

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** The files of `dir` by URL path relative to it (`index.html`, `assets/index-abc123.js`); empty when not built. */
export function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(join(dir, 'index.html'))) return assets;
  for (const file of walk(dir, [])) {
    const rel = relative(dir, file).split(sep).join('/');
    const body = readFileSync(file);
    assets.set(rel, {
      body, type: TYPES[extname(file)] ?? 'application/octet-stream',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      immutable: rel.startsWith('assets/'),
    });
  }
  return assets;
}
