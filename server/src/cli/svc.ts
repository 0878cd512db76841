/** `svc` entry point (placeholder until the server lands). */
export async function runSvc(_argv: readonly string[]): Promise<number> {
  return 0;
}
