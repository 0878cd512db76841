/**
 * Talking to one svc node directly, past the proxy: nodes publish no port (SPEC rule 9), so the client connects to
 * the container's address on its compose network, which the Docker host routes to (Linux bridge networks).
 */
import { Agent } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { docker } from './env.js';

/** The container's IPv4 address on its first network. */
export function containerAddress(container: string): string {
  const out = docker(['inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', container]).trim();
  const ip = out.split(/\s+/).find((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a));
  if (ip === undefined) throw new Error(`container ${container} has no IPv4 address (${out})`);
  return ip;
}

/** A path-style S3 client for one node's S3 port (plain HTTP, SigV4 with the given credentials). */
export function nodeS3Client(container: string, creds: { accessKey: string; secretKey: string }): S3Client {
  return new S3Client({
    endpoint: `http://${containerAddress(container)}:9000`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: creds.accessKey, secretAccessKey: creds.secretKey },
    requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ keepAlive: false }) }),
    maxAttempts: 1,
  });
}
