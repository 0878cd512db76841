export {
  OUTPUT_FILES,
  CERT_PATHS,
  PORTS,
  HEALTH_PATHS,
  CONSOLE_PATH,
  ACME_CHALLENGE_PREFIX,
  TIMEOUTS,
  CONTAINER_HEALTH,
  COOKIES,
  CONTAINER_PATHS,
  SOCKET_PROXY_IMAGE,
  SERVICE_NAMES,
  proxyPemPaths,
} from './layout.js';
export type { ProxyPemPaths } from './layout.js';
export { buildTopology } from './topology.js';
export type { Topology, NodeInfo, DriveVolume } from './topology.js';
export { composeViewModel, nodeHealthScript } from './compose/view-model.js';
export type { ComposeView, ComposeNodeView } from './compose/view-model.js';
export { acmeResponderViewModel } from './compose/acme-responder.js';
export type { AcmeResponderView } from './compose/acme-responder.js';
export { haproxyViewModel } from './haproxy/view-model.js';
export type { HaproxyView } from './haproxy/view-model.js';
export { traefikStaticViewModel, traefikDynamicViewModel, TRAEFIK_RESOLVER, TRAEFIK_ENTRYPOINTS } from './traefik/view-model.js';
export type { TraefikStaticView, TraefikDynamicView } from './traefik/view-model.js';
export { listTemplateFiles, outputsFor, TEMPLATE_FILES } from './registry.js';
export type { OutputSpec, OutputFormat } from './registry.js';
