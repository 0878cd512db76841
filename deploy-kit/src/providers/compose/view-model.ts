import type { DeploymentSpec } from '../../config/index.js';
import {
  CERT_PATHS,
  CONTAINER_HEALTH,
  CONTAINER_PATHS,
  HEALTH_PATHS,
  OUTPUT_FILES,
  PORTS,
  SERVICE_NAMES,
  SOCKET_PROXY_IMAGE,
  proxyPemPaths,
} from '../layout.js';
import { buildTopology } from '../topology.js';

/** A compose service for one server node. */
export interface ComposeNodeView {
  name: string;
  image: string;
  command: string[];
  environment: { key: string; value: string }[];
  volumes: { volume: string; target: string }[];
  healthTest: string[];
}

/** The compose view model; templates see nothing else. Absent parts are `null` (strict templates need every key). */
export interface ComposeView {
  nodes: ComposeNodeView[];
  volumes: string[];
  health: { interval: string; timeout: string; retries: number; startPeriod: string };
  proxy: {
    name: string;
    image: string;
    command: string[];
    user: string | null;
    ports: string[];
    binds: { source: string; target: string; readOnly: boolean }[];
    dependsOn: { service: string; condition: 'service_healthy' | 'service_started' }[];
    socketNetwork: boolean;
  };
  acmeResponder: { name: string; image: string; entrypoint: string[]; binds: { source: string; target: string }[] } | null;
  socketProxy: { name: string; image: string } | null;
}

/**
 * SPEC rule 8 health check as an exec-form `node -e` script: the server image has no shell or curl
 * (DOCKER.md §1b), and both listeners must answer 200.
 */
export function nodeHealthScript(timeoutMs: number): string {
  const urls = [`http://127.0.0.1:${PORTS.s3}${HEALTH_PATHS.s3Ready}`, `http://127.0.0.1:${PORTS.console}${HEALTH_PATHS.consoleHealth}`];
  return (
    "const h=require('http');" +
    `const g=u=>new Promise((ok,no)=>{const q=h.get(u,r=>{r.resume();r.statusCode===200?ok():no()});q.on('error',no);q.setTimeout(${timeoutMs},()=>{q.destroy();no()})});` +
    `Promise.all([${urls.map((u) => `g('${u}')`).join(',')}]).then(()=>process.exit(0),()=>process.exit(1))`
  );
}

function pemSource(spec: DeploymentSpec): string {
  return spec.tls.mode === 'pem' ? spec.tls.pem.file : CERT_PATHS.combinedPem;
}

/** The certificate FOLDER, read-only (see {@link proxyPemPaths}: a rotation renames a new file into it). */
function certsBind(spec: DeploymentSpec): ComposeView['proxy']['binds'][number] {
  const paths = proxyPemPaths(spec.proxy, pemSource(spec));
  return { source: `./${paths.hostDir}`, target: paths.containerDir, readOnly: true };
}

function proxyView(spec: DeploymentSpec, nodeNames: string[]): ComposeView['proxy'] {
  // The proxy starts once every node passes its health check (SPEC rule 8); helpers only need to be started.
  const dependsOn: ComposeView['proxy']['dependsOn'] = nodeNames.map((service) => ({ service, condition: 'service_healthy' }));
  const ports = [`${PORTS.http}:${PORTS.http}`, `${PORTS.https}:${PORTS.https}`];
  if (spec.proxy === 'haproxy') {
    if (spec.tls.mode === 'acme') dependsOn.push({ service: SERVICE_NAMES.acmeResponder, condition: 'service_started' });
    return {
      name: SERVICE_NAMES.proxy,
      image: spec.images.proxy,
      command: ['haproxy', '-W', '-db', '-f', CONTAINER_PATHS.haproxyConfig],
      // Starts as root to read the mode-600 PEM and bind 80/443; haproxy.cfg `user haproxy` drops privileges.
      user: 'root',
      ports,
      binds: [
        { source: `./${OUTPUT_FILES.haproxyConfig}`, target: CONTAINER_PATHS.haproxyConfig, readOnly: true },
        certsBind(spec),
      ],
      dependsOn,
      socketNetwork: false,
    };
  }
  const binds: ComposeView['proxy']['binds'] = [
    { source: `./${OUTPUT_FILES.traefikStatic}`, target: CONTAINER_PATHS.traefikStatic, readOnly: true },
    { source: `./${OUTPUT_FILES.traefikDynamic}`, target: CONTAINER_PATHS.traefikDynamic, readOnly: true },
  ];
  if (spec.tls.mode === 'pem') binds.push(certsBind(spec));
  else binds.push({ source: `./${CERT_PATHS.acmeStorageDir}`, target: CONTAINER_PATHS.traefikAcmeDir, readOnly: false });
  if (spec.dockerProvider === true) dependsOn.push({ service: SERVICE_NAMES.socketProxy, condition: 'service_started' });
  return {
    name: SERVICE_NAMES.proxy,
    image: spec.images.proxy,
    command: ['traefik', `--configFile=${CONTAINER_PATHS.traefikStatic}`],
    user: null,
    ports,
    binds,
    dependsOn,
    socketNetwork: spec.dockerProvider === true,
  };
}

/** Builds the compose view model: nodes, named volumes, the proxy, and optional helpers. */
export function composeViewModel(spec: DeploymentSpec): ComposeView {
  const topo = buildTopology(spec);
  const parity = spec.cluster.parity === undefined ? [] : [{ key: 'SVC_STORAGE_CLASS_STANDARD', value: `EC:${spec.cluster.parity}` }];
  const healthTest = ['CMD', 'node', '-e', nodeHealthScript(4000)];
  const nodes = topo.nodes.map((n) => ({
    name: n.name,
    image: spec.images.server,
    command: topo.serverArgs,
    // A node finds itself in the shared endpoint list by name: the container's own hostname is its id, so the
    // service name the list uses (http://nodeN:9000/...) is given as SVC_HOSTNAME.
    environment: topo.multiNode ? [{ key: 'SVC_HOSTNAME', value: n.name }, ...parity] : parity,
    volumes: n.drives,
    healthTest,
  }));
  const view: ComposeView = {
    nodes,
    volumes: topo.nodes.flatMap((n) => n.drives.map((d) => d.volume)),
    health: { ...CONTAINER_HEALTH },
    proxy: proxyView(spec, topo.nodes.map((n) => n.name)),
    acmeResponder: null,
    socketProxy: null,
  };
  if (spec.proxy === 'haproxy' && spec.tls.mode === 'acme') {
    view.acmeResponder = {
      name: SERVICE_NAMES.acmeResponder,
      image: spec.images.server,
      entrypoint: ['node', CONTAINER_PATHS.responderScript],
      binds: [
        { source: `./${OUTPUT_FILES.acmeResponder}`, target: CONTAINER_PATHS.responderScript },
        { source: `./${CERT_PATHS.acmeChallengeDir}`, target: CONTAINER_PATHS.responderWebroot },
      ],
    };
  }
  if (spec.proxy === 'traefik' && spec.dockerProvider === true) {
    view.socketProxy = { name: SERVICE_NAMES.socketProxy, image: SOCKET_PROXY_IMAGE };
  }
  return view;
}
