import { load } from 'js-yaml';
import type { DeploymentSpec, ProxyKind } from '../config/index.js';
import { listTemplateFiles as providerTemplateFiles, outputsFor } from '../providers/index.js';
import type { OutputSpec } from '../providers/index.js';
import { createRenderer, partialsOf } from './engine.js';
import { RENDER_ERROR_CODES, RenderError } from './render-error.js';

/** Template sources keyed by their path under templates/ (COMMANDS reads them from disk). */
export type TemplateSet = Readonly<Record<string, string>>;

/** One file of a rendering, relative to the deployment directory. */
export interface PlannedFile {
  path: string;
  content: string;
  mode: number;
}

/** Everything `render` would write. */
export interface RenderPlan {
  files: PlannedFile[];
}

/** Which template paths planRender needs for a proxy. */
export function listTemplateFiles(proxy: ProxyKind): string[] {
  return providerTemplateFiles(proxy);
}

function checkOutput(out: OutputSpec, content: string): void {
  if (out.format === 'yaml') {
    let doc: unknown;
    try {
      doc = load(content);
    } catch (err) {
      throw new RenderError(RENDER_ERROR_CODES.outputInvalid, out.output, `${out.output} is not valid YAML: ${(err as Error).message}`, `fix the template ${out.template}`, err);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new RenderError(RENDER_ERROR_CODES.outputInvalid, out.output, `${out.output} did not render to a YAML mapping`, `fix the template ${out.template}`);
    }
  } else if (content.trim() === '') {
    throw new RenderError(RENDER_ERROR_CODES.outputInvalid, out.output, `${out.output} rendered empty`, `fix the template ${out.template}`);
  }
}

/**
 * Renders every file of a deployment from a validated spec. Pure: templates come in as data, files
 * go out as data; each YAML output is parsed back with js-yaml before it is returned.
 * @throws RenderError when a template is missing, fails in strict mode, or yields invalid output.
 */
export function planRender(spec: DeploymentSpec, templates: TemplateSet): RenderPlan {
  const render = createRenderer(partialsOf(templates));
  const files: PlannedFile[] = [];
  for (const out of outputsFor(spec)) {
    const source = templates[out.template];
    if (source === undefined) {
      throw new RenderError(RENDER_ERROR_CODES.templateMissing, out.output, `template ${out.template} was not provided`, 'pass every path from listTemplateFiles(proxy)');
    }
    let content: string;
    try {
      content = render(source, out.view);
    } catch (err) {
      throw new RenderError(RENDER_ERROR_CODES.templateFailed, out.output, `template ${out.template} failed: ${(err as Error).message}`, 'the template refers to a field the view model does not have', err);
    }
    checkOutput(out, content);
    files.push({ path: out.output, content, mode: out.mode });
  }
  return { files };
}
