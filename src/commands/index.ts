/** The registry of commands, in the order `--help` lists them. */
import type { Command } from '../cli/command.js';

export const COMMANDS: Command[] = [];
