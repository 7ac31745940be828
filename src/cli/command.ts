/**
 * The shape every command shares: a name, its options (which also produce `--help`), and a
 * `run` that returns the exit status. Commands never call process.exit; they throw
 * MirrorErrors, which `cli.ts` turns into a one-line message and a status.
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Writable } from 'node:stream';
import { UsageError } from '../errors.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in help: the placeholder for a string value. */
  value?: string;
  multiple?: boolean;
  short?: string;
}

export interface CommandIo {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stderr is a terminal (progress lines are shown only then). */
  isTTY: boolean;
}

export interface Command {
  name: string;
  summary: string;
  /** The positional arguments, as shown in help, e.g. `OLD NEW`. */
  positionals?: string;
  options: Record<string, OptionSpec>;
  run(parsed: ParsedArgs, io: CommandIo): Promise<number>;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `--config FILE`, as every command that reads the config takes it. */
export const CONFIG_OPTION: OptionSpec = { type: 'string', value: 'FILE', description: 'config file (default config/mirror.json when present)' };
/** `--dir DIR` of the commands that read a published folder. */
export const DIR_OPTION: OptionSpec = { type: 'string', value: 'DIR', description: 'the output folder (default: "out" of the config, else ./output)' };

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** Parses a command's arguments; every problem is a UsageError naming the flag. */
export function parseCommandArgs(command: Command, args: string[]): ParsedArgs | 'help' {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries({ ...command.options, ...GLOBAL_OPTIONS })) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(`${command.name}: ${message?.replace(/\. To specify a positional argument.*$/, '')} (see inventory-mirror ${command.name} --help)`);
  }
  if (parsed.values.help) return 'help';
  const expected = command.positionals ? command.positionals.split(' ').filter((p) => !p.startsWith('[')).length : 0;
  const allowed = command.positionals ? command.positionals.split(' ').length : 0;
  if (parsed.positionals.length < expected || parsed.positionals.length > allowed) {
    const want = command.positionals ? `expects ${command.positionals}` : 'takes no positional arguments';
    throw new UsageError(`${command.name} ${want}, got ${parsed.positionals.length === 0 ? 'none' : parsed.positionals.map((p) => JSON.stringify(p)).join(' ')} (see inventory-mirror ${command.name} --help)`);
  }
  return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
}

/** The `--help` text of a command. */
export function commandHelp(command: Command): string {
  const lines = [`Usage: inventory-mirror ${command.name}${command.positionals ? ` ${command.positionals}` : ''} [options]`, '', command.summary, '', 'Options:'];
  const entries = Object.entries({ ...command.options, ...GLOBAL_OPTIONS });
  const heads = entries.map(([name, spec]) => `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`);
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  entries.forEach(([, spec], i) => lines.push(`  ${heads[i]!.padEnd(width)}${spec.description}`));
  return `${lines.join('\n')}\n`;
}

/** Reads a string flag, or undefined. */
/** The output folder a command works on: its flag, else INVENTORY_MIRROR_OUT, else the config's "out". */
export function outputFolder(flag: string | undefined, io: CommandIo, config: { out: string }): string {
  return resolve(io.cwd, flag ?? io.env.INVENTORY_MIRROR_OUT ?? config.out);
}

export function stringFlag(parsed: ParsedArgs, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** Reads an integer flag within bounds, or undefined; a malformed value is a UsageError naming the flag. */
export function intFlag(parsed: ParsedArgs, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = stringFlag(parsed, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) throw new UsageError(`--${name}: expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return value;
}
