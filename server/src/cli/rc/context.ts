/** What every command receives (gh's Factory): streams, lazily read configuration, and the colour palette. */
import type { Command } from 'commander';
import { type Palette, palette } from './color.js';
import { loadConfig, type RcConfig } from './config.js';
import { type RcIo, useColor } from './io.js';

/** Dependencies of a command run. */
export interface RcContext {
  io: RcIo;
  /** The alias file, read on first use (so `rc --help` works with a broken file). */
  config(): RcConfig;
  /** Colours for stdout (off unless a TTY without NO_COLOR). */
  color: Palette;
}

/** Builds the context for `io`. */
export function createContext(io: RcIo): RcContext {
  let cached: RcConfig | undefined;
  return {
    io,
    config() {
      cached ??= loadConfig(io.env);
      return cached;
    },
    color: palette(useColor(io)),
  };
}

/** A command factory: builds one commander command (parse only) bound to `ctx`. */
export type CommandFactory = (ctx: RcContext) => Command;
