/**
 * The integration harness (issue 7): real deployments through deploy-kit, raw wire requests and the AWS SDK
 * through the published proxy, local images only. Other suites import this file only.
 */
export { REPO_ROOT, BASE_IMAGES, RUN_ID, RUN_LABELS, requireDocker, docker } from './env.js';
export { serverImage } from './server-image.js';
export { runDeployKit, deployKit } from './deploy-kit.js';
export type { DeployKitResult } from './deploy-kit.js';
export { freePort, loopbackLookup } from './net.js';
export { wire } from './https-client.js';
export type { WireRequest, WireResponse } from './https-client.js';
export { s3Client } from './s3-client.js';
export type { S3Target } from './s3-client.js';
export { TEST_HOSTS, startStack } from './stack.js';
export type { Stack, StackOptions } from './stack.js';
export { LoopbackContainer } from './loopback-container.js';
export { parseStatCsv, showStat, serverRow, sampleStat } from './haproxy-runtime.js';
export type { StatRow, StatSampler } from './haproxy-runtime.js';
export { containerAddress, nodeS3Client } from './direct-node.js';
