/** Entry of the deploy-kit CLI; replaced by the real program (issue 3). */
export async function main(_argv: readonly string[]): Promise<number> {
  return 0;
}
