import type { DeploymentSpec } from '../config/index.js';
import { CONTAINER_PATHS, PORTS } from './layout.js';

/** One drive volume of a node. */
export interface DriveVolume {
  volume: string;
  target: string;
}

/** One server node as the proxies and compose see it. */
export interface NodeInfo {
  name: string;
  drives: DriveVolume[];
}

/** Nodes, their drives, and the server command line every node shares. */
export interface Topology {
  nodes: NodeInfo[];
  serverArgs: string[];
  multiNode: boolean;
}

/**
 * Derives nodes and drives. Single node, single drive: one volume at /data (SPEC §2). Otherwise each
 * node mounts /data1../dataM and every node gets the same endpoint list in ellipsis form
 * (`http://node{1...N}:9000/data{1...M}`), so node names double as compose service names.
 */
export function buildTopology(spec: DeploymentSpec): Topology {
  const { nodes: n, drivesPerNode: m } = spec.cluster;
  const single = n === 1 && m === 1;
  const nodes: NodeInfo[] = [];
  for (let i = 1; i <= n; i++) {
    const name = `node${i}`;
    const drives: DriveVolume[] = single
      ? [{ volume: `${name}-data`, target: CONTAINER_PATHS.singleDrive }]
      : Array.from({ length: m }, (_, j) => ({ volume: `${name}-data${j + 1}`, target: `/data${j + 1}` }));
    nodes.push({ name, drives });
  }
  const drivePart = m === 1 ? '/data1' : `/data{1...${m}}`;
  const endpoints = single ? CONTAINER_PATHS.singleDrive : n === 1 ? drivePart : `http://node{1...${n}}:${PORTS.s3}${drivePart}`;
  return { nodes, serverArgs: ['server', '--console-address', `:${PORTS.console}`, endpoints], multiNode: n > 1 };
}
