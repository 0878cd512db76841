/** Public names of the cluster layer (STYLE.md convention 15: explicit list, no `export *`). */
export { parseTopology } from './topology.js';
export type { Endpoint, NodeIdentity, PoolTopology, Topology, TopologyOptions } from './topology.js';
