/**
 * Traefik files: the SchemaStore JSON Schemas (DOCKER.md §6) plus RENDER's checks of what they miss (references,
 * rule syntax, health-check keys), through validateTraefik. There is no Traefik binary to ask.
 */
import { join } from 'node:path';
import { load } from 'js-yaml';
import type { Fs } from '../../io/index.js';
import { OUTPUT_FILES } from '../../providers/index.js';
import { validateTraefik } from '../../validate/index.js';
import { finding } from './finding.js';
import type { CheckFinding } from './finding.js';

/** File names of the schemas inside the schemas folder. */
export const TRAEFIK_SCHEMA_FILES = { static: 'traefik-v3.json', dynamic: 'traefik-v3-file-provider.json' } as const;

async function yamlFile(fs: Fs, dir: string, rel: string, out: CheckFinding[]): Promise<unknown> {
  const text = await fs.readText(join(dir, rel));
  if (text === undefined) {
    out.push(finding.error('traefik', `${rel} is missing`, 'run deploy-kit render'));
    return undefined;
  }
  try {
    return load(text);
  } catch (err) {
    out.push(finding.error('traefik', `${rel} is not valid YAML: ${(err as Error).message.split('\n')[0]}`, 'run deploy-kit render to regenerate it'));
    return undefined;
  }
}

async function schema(fs: Fs, schemasDir: string, file: string): Promise<object | undefined> {
  const text = await fs.readText(join(schemasDir, file));
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}

/** Validates traefik/traefik.yml and traefik/dynamic.yml. */
export async function checkTraefik(dir: string, schemasDir: string, fs: Fs): Promise<CheckFinding[]> {
  const out: CheckFinding[] = [];
  const staticDoc = await yamlFile(fs, dir, OUTPUT_FILES.traefikStatic, out);
  const dynamicDoc = await yamlFile(fs, dir, OUTPUT_FILES.traefikDynamic, out);
  if (staticDoc === undefined || dynamicDoc === undefined) return out;
  const staticSchema = await schema(fs, schemasDir, TRAEFIK_SCHEMA_FILES.static);
  const dynamicSchema = await schema(fs, schemasDir, TRAEFIK_SCHEMA_FILES.dynamic);
  if (staticSchema === undefined || dynamicSchema === undefined) {
    out.push(finding.warning('traefik', `Traefik JSON Schemas not found in ${schemasDir}; only deploy-kit's own checks ran`,
      'pass --schemas <dir> or set DEPLOY_KIT_TRAEFIK_SCHEMAS to the folder holding traefik-v3.json and traefik-v3-file-provider.json'));
  }
  for (const f of validateTraefik(staticDoc, dynamicDoc, { static: staticSchema ?? {}, dynamic: dynamicSchema ?? {} })) {
    const message = `${f.path === undefined ? '' : `${f.path}: `}${f.message}`;
    out.push(f.level === 'error' ? finding.error('traefik', message, f.hint) : finding.warning('traefik', message, f.hint));
  }
  return out;
}
