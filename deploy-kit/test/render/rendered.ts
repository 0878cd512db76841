/** Test helper: renders a spec and hands back each output parsed (YAML via js-yaml, haproxy.cfg by sections). */
import { load } from 'js-yaml';
import type { DeploymentSpec } from '../../src/config/index.js';
import { planRender } from '../../src/render/index.js';
import { parseHaproxySections, findSection } from '../../src/validate/index.js';
import type { HaproxySection } from '../../src/validate/index.js';
import { loadTemplateSet } from './fixtures.js';

// Parsed YAML is walked freely in assertions, so it is typed loosely on purpose.
type Obj = Record<string, any>;

/** All outputs of one rendering. */
export interface Rendered {
  files: Record<string, string>;
  compose: Obj;
  haproxyText: string;
  haproxy: HaproxySection[];
  traefikStatic: Obj;
  traefikDynamic: Obj;
}

const templates = loadTemplateSet();

/** Renders and parses every output of `spec`. */
export function render(spec: DeploymentSpec): Rendered {
  const files = Object.fromEntries(planRender(spec, templates).files.map((f) => [f.path, f.content]));
  const haproxyText = files['haproxy/haproxy.cfg'] ?? '';
  return {
    files,
    compose: load(files['compose.yaml']!) as Obj,
    haproxyText,
    haproxy: parseHaproxySections(haproxyText),
    traefikStatic: (files['traefik/traefik.yml'] ? load(files['traefik/traefik.yml']) : {}) as Obj,
    traefikDynamic: (files['traefik/dynamic.yml'] ? load(files['traefik/dynamic.yml']) : {}) as Obj,
  };
}

/** Lines of a haproxy section, failing when it is absent. */
export function section(r: Rendered, kind: string, name = ''): string[] {
  const s = findSection(r.haproxy, kind, name);
  if (!s) throw new Error(`no section "${kind} ${name}" in haproxy.cfg`);
  return s.lines;
}
