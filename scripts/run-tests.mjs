#!/usr/bin/env node
// Finds every *.test.ts of the workspaces and runs them with node:test through tsx.
// Usage: node scripts/run-tests.mjs [--layout-pass] [path-filter ...]
// --layout-pass keeps only the files whose outcome can depend on the drive layout (scripts/layout-tests.mjs).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { layoutTests } from './layout-tests.mjs';

const roots = ['server/src', 'server/test', 'deploy-kit/src', 'deploy-kit/test'];
if (process.env.SVC_INTEGRATION === '1') roots.push('integration/test');

function walk(dir, out) {
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const name of entries) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const layoutPass = args[0] === '--layout-pass';
const filters = layoutPass ? args.slice(1) : args;
const matched = roots.flatMap((r) => walk(r, [])).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
const files = layoutPass ? layoutTests(matched) : matched;
if (files.length === 0) { console.error('run-tests: no test files matched'); process.exit(1); }
// SVC_KEY_INDEX=0 runs the suite on drives with a metadata file per key instead of the default key index: spawned
// servers read it from their environment, drives made in-process get it from this preload.
const layout = process.env.SVC_KEY_INDEX ?? '';
const preload = layout !== '' ? ['--import', './server/test/helpers/drive-layout-suite.ts'] : [];
const r = spawnSync(process.execPath, [
  '--import', 'tsx', ...preload, '--test', '--test-concurrency=2', '--test-timeout=600000', ...files,
], { stdio: 'inherit' });
process.exit(r.status ?? 1);
