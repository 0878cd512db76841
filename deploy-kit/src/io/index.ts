export type { Choice, Clock, Deps, Dns, Exec, ExecResult, FileInfo, Fs, KitPaths, LookupResult, Net, Output, PortState, Prompter } from './ports.js';
export { colorAllowed, createNodeDeps, defaultKitPaths, findPackageRoot, readPackageVersion } from './node.js';
export { createNodeFs } from './node-fs.js';
