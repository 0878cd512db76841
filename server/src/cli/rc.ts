/** `rc` entry point (placeholder until the client lands). */
export async function runRc(_argv: readonly string[]): Promise<number> {
  return 0;
}
