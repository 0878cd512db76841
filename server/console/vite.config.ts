/**
 * Build of the console front end (issue 6): served by the console listener under /svc/console/, so assets are
 * addressed from there; output into server/dist/console (never committed). Hashed file names let the server
 * cache them as immutable.
 */
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/svc/console/',
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // CSP forbids inline scripts and styles: everything goes to files, and no modulepreload polyfill is inlined.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
  },
});
