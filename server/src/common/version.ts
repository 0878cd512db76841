/** The service version reported by probes, the banner and (later) the cluster report (SPEC §9). */
export const VERSION = '0.1.0';
