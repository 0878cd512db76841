import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The server's own Node-API addons (server/native/NAME.c, built into server/native/build/NAME.node by
 * scripts/build-native.sh). Each is optional: where one is not built, or fails to load (another platform or Node ABI),
 * its caller runs the portable code it replaces, with the same results.
 */

/** Where an addon is built, seen from this file in server/src/common or in server/dist/src/common. */
function candidates(name: string): string[] {
  return [`../../native/build/${name}.node`, `../../../native/build/${name}.node`].map((p) => fileURLToPath(new URL(p, import.meta.url)));
}

const loaded = new Map<string, { path: string; exports: unknown } | null>();

/** The addon NAME, loaded once per thread, with its path; undefined when not built or not loadable. */
export function loadAddon(name: string): { path: string; exports: unknown } | undefined {
  let got = loaded.get(name);
  if (got === undefined) {
    got = null;
    const path = candidates(name).find((p) => existsSync(p));
    if (path !== undefined) {
      try {
        got = { path, exports: createRequire(import.meta.url)(path) as unknown };
      } catch {
        // Built for another platform or Node ABI: the caller's portable code runs.
      }
    }
    loaded.set(name, got);
  }
  return got ?? undefined;
}
