import Handlebars from 'handlebars';
import { HELPERS } from './helpers.js';

/** Renders one template source against a view model. */
export type Renderer = (source: string, view: object) => string;

/**
 * An isolated Handlebars environment (never the global one) in strict mode, so a missing view-model
 * field throws instead of rendering empty, and with no HTML escaping (STYLE.md convention 13).
 */
export function createRenderer(partials: Readonly<Record<string, string>>): Renderer {
  const hbs = Handlebars.create();
  for (const [name, fn] of Object.entries(HELPERS)) hbs.registerHelper(name, fn);
  for (const [name, src] of Object.entries(partials)) hbs.registerPartial(name, hbs.compile(src, { strict: true, noEscape: true }));
  return (source, view) => hbs.compile(source, { strict: true, noEscape: true })(view);
}

/**
 * Partials are the templates whose file name starts with `_`; `traefik/_router-tls.hbs` is used as
 * `{{> traefik/router-tls}}`.
 */
export function partialsOf(templates: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, src] of Object.entries(templates)) {
    const slash = path.lastIndexOf('/');
    const base = path.slice(slash + 1);
    if (!base.startsWith('_') || !base.endsWith('.hbs')) continue;
    out[`${path.slice(0, slash + 1)}${base.slice(1, -'.hbs'.length)}`] = src;
  }
  return out;
}
