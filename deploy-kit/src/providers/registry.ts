import type { DeploymentSpec, ProxyKind } from '../config/index.js';
import { acmeResponderViewModel } from './compose/acme-responder.js';
import { composeViewModel } from './compose/view-model.js';
import { haproxyViewModel } from './haproxy/view-model.js';
import { OUTPUT_FILES } from './layout.js';
import { traefikDynamicViewModel, traefikStaticViewModel } from './traefik/view-model.js';

/** How an output is checked after rendering. */
export type OutputFormat = 'yaml' | 'haproxy' | 'javascript';

/** One file to render: which template, which view model, where it goes. */
export interface OutputSpec {
  template: string;
  output: string;
  mode: number;
  format: OutputFormat;
  view: object;
}

/** Template paths (relative to templates/) per output, plus partials. */
export const TEMPLATE_FILES = {
  compose: 'compose/compose.yaml.hbs',
  haproxy: 'haproxy/haproxy.cfg.hbs',
  traefikStatic: 'traefik/traefik.yml.hbs',
  traefikDynamic: 'traefik/dynamic.yml.hbs',
  traefikRouterTlsPartial: 'traefik/_router-tls.hbs',
  acmeResponder: 'acme/responder.mjs.hbs',
} as const;

/** Every template path a proxy's renderings can need, so the caller loads exactly these. */
export function listTemplateFiles(proxy: ProxyKind): string[] {
  if (proxy === 'haproxy') return [TEMPLATE_FILES.compose, TEMPLATE_FILES.haproxy, TEMPLATE_FILES.acmeResponder];
  return [TEMPLATE_FILES.compose, TEMPLATE_FILES.traefikStatic, TEMPLATE_FILES.traefikDynamic, TEMPLATE_FILES.traefikRouterTlsPartial];
}

/** The outputs of one spec, in a stable order, each with its pure view model. */
export function outputsFor(spec: DeploymentSpec): OutputSpec[] {
  const files: OutputSpec[] = [{ template: TEMPLATE_FILES.compose, output: OUTPUT_FILES.compose, mode: 0o644, format: 'yaml', view: composeViewModel(spec) }];
  if (spec.proxy === 'haproxy') {
    files.push({ template: TEMPLATE_FILES.haproxy, output: OUTPUT_FILES.haproxyConfig, mode: 0o644, format: 'haproxy', view: haproxyViewModel(spec) });
    if (spec.tls.mode === 'acme') {
      files.push({ template: TEMPLATE_FILES.acmeResponder, output: OUTPUT_FILES.acmeResponder, mode: 0o644, format: 'javascript', view: acmeResponderViewModel() });
    }
  } else {
    files.push({ template: TEMPLATE_FILES.traefikStatic, output: OUTPUT_FILES.traefikStatic, mode: 0o644, format: 'yaml', view: traefikStaticViewModel(spec) });
    files.push({ template: TEMPLATE_FILES.traefikDynamic, output: OUTPUT_FILES.traefikDynamic, mode: 0o644, format: 'yaml', view: traefikDynamicViewModel(spec) });
  }
  return files;
}
