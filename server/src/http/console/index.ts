/** Public names of the console listener. */
export { consolePlugin } from './plugin.js';
export type { ConsolePluginOptions } from './plugin.js';
