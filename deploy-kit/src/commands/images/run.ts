/** `deploy-kit images build`: the server image from this repository's Dockerfile, on a chosen base (air-gapped builds). */
import { dirname, resolve } from 'node:path';
import { DEFAULT_BASE_IMAGE, buildServerImage } from '../../compose/index.js';
import { DEFAULT_SERVER_IMAGE } from '../../config/index.js';
import type { Deps } from '../../io/index.js';

/** Options of `images build`. */
export interface ImagesBuildOptions {
  readonly tag: string | undefined;
  readonly baseImage: string | undefined;
  /** Repository root; default: the checkout deploy-kit runs from. */
  readonly repo: string | undefined;
  readonly json: boolean;
}

/** Builds the image and prints its tag. */
export async function runImagesBuild(opts: ImagesBuildOptions, deps: Deps): Promise<void> {
  const tag = opts.tag ?? DEFAULT_SERVER_IMAGE;
  const baseImage = opts.baseImage ?? DEFAULT_BASE_IMAGE;
  const repo = opts.repo === undefined ? dirname(deps.paths.templatesDir) : resolve(deps.cwd, opts.repo);
  await buildServerImage(deps.fs, deps.exec, { repo, tag, baseImage });
  deps.out.stdout(opts.json ? `${JSON.stringify({ tag, baseImage, repo })}\n` : `built ${tag} on ${baseImage} from ${repo}\n`);
}
