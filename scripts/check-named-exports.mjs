#!/usr/bin/env node
// STYLE.md convention 15: named exports only. Fails listing every `export default` in the workspaces' sources.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['server/src', 'server/test', 'server/bench', 'deploy-kit/src', 'deploy-kit/test', 'integration/test'];
const offenders = [];
const walk = (dir) => {
  let names;
  try { names = readdirSync(dir); } catch { return; }
  for (const n of names) {
    if (n === 'node_modules' || n === 'dist') continue;
    const p = join(dir, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.(ts|mts|js|mjs)$/.test(n) && /^\s*export\s+default\b/m.test(readFileSync(p, 'utf8'))) offenders.push(p);
  }
};
roots.forEach(walk);
if (offenders.length > 0) {
  console.error(`named exports only (STYLE.md convention 15); default exports in:\n  ${offenders.join('\n  ')}`);
  process.exit(1);
}
