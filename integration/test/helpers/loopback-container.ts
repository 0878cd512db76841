/** testcontainers publishes on 0.0.0.0 and [::] with no HostIp option; this pins every binding to 127.0.0.1 (DOCKER.md §5). */
import { GenericContainer } from 'testcontainers';
import type { StartedTestContainer } from 'testcontainers';
import { RUN_LABELS } from './env.js';

/** A GenericContainer whose published ports listen on loopback only and which carries this run's label. */
export class LoopbackContainer extends GenericContainer {
  override async start(): Promise<StartedTestContainer> {
    this.withLabels(RUN_LABELS);
    const bindings = (this as unknown as { hostConfig: { PortBindings?: Record<string, { HostIp?: string }[]> } }).hostConfig.PortBindings ?? {};
    for (const list of Object.values(bindings)) for (const b of list) b.HostIp = '127.0.0.1';
    return super.start();
  }
}
