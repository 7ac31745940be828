/**
 * The shape every command shares: a name, its options (which also produce `--help`), and a
 * `run` that returns the exit status. Commands never call process.exit; they throw
 * MirrorErrors, which `cli.ts` turns into a one-line message and a status. Each command turns
 * flags, environment and config into one typed options object, once; the domain never sees flags.
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { Output, type LogFormat, type Verbosity } from './output.js';

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

/** A command as the top-level help lists it, and how to load the rest of it. */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<CommandDefinition>;
}

/** What a command's own module holds: its arguments, help notes and run. */
export interface CommandDefinition {
  /** The positional arguments, as shown in help, e.g. `OLD NEW`. */
  positionals?: string;
  options: Record<string, OptionSpec>;
  /** Lines after the options in `--help`: examples, notes. */
  notes?: string[];
  run(parsed: ParsedArgs, io: CommandIo): Promise<number>;
}

/** A command loaded to run. */
export type Command = Omit<CommandEntry, 'load'> & CommandDefinition;

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** `--config FILE`, as every command that reads the config takes it. */
export const CONFIG_OPTION: OptionSpec = { type: 'string', value: 'FILE', description: 'config file (default config/mirror.json when present)' };
/** `--dir DIR` of the commands that read a published folder. */
export const DIR_OPTION: OptionSpec = { type: 'string', value: 'DIR', description: 'the output folder (default: "out" of the config, else ./output)' };

/** How much a command says, and in what form: for the commands that log. */
export const OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  quiet: { type: 'boolean', short: 'q', description: 'warnings and errors only (no progress, no summary)' },
  verbose: { type: 'boolean', short: 'v', description: 'also a line per retry and other detail' },
  'log-format': { type: 'string', value: 'text|json', description: 'json: one JSON object per line on stderr, for log collectors (default text)' },
};

const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/** Levenshtein distance, for "did you mean" on a mistyped flag. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The known option closest to `given` (a mistyped `--base-ur`), if any is close. */
function closestOption(given: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = name.startsWith(given) || given.startsWith(name) ? 1 : distance(given, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(given.length / 3)) ? best : undefined;
}

/** Parses a command's arguments; every problem is a UsageError naming the flag (and the likely one meant). */
export function parseCommandArgs(command: Command, args: string[]): ParsedArgs | 'help' {
  const specs = { ...command.options, ...GLOBAL_OPTIONS };
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type, ...(spec.short ? { short: spec.short } : {}), ...(spec.multiple ? { multiple: true } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error instanceof Error ? error.message.split('\n')[0]! : String(error)).replace(/\. To specify a positional argument.*$/, '');
    const unknown = /^Unknown option '(--?)([^']+)'/.exec(message);
    const guess = unknown ? closestOption(unknown[2]!, Object.keys(specs)) : undefined;
    throw new UsageError(`${message}${guess ? `; did you mean --${guess}?` : ''} (see inventory-mirror ${command.name} --help)`);
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
  if (command.notes?.length) lines.push('', ...command.notes);
  return `${lines.join('\n')}\n`;
}

/** The output folder a command works on: its flag, else INVENTORY_MIRROR_OUT, else the config's "out". */
export function outputFolder(flag: string | undefined, io: CommandIo, config: { out: string }): string {
  return resolve(io.cwd, flag ?? io.env.INVENTORY_MIRROR_OUT ?? config.out);
}

/** Reads a string flag, or undefined. */
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

/** A path flag resolved against the working directory, or undefined. */
export function pathFlag(parsed: ParsedArgs, name: string, io: CommandIo): string | undefined {
  const raw = stringFlag(parsed, name);
  return raw === undefined ? undefined : resolve(io.cwd, raw);
}

/** The command's Output from `-q`, `-v` and `--log-format`. */
export function outputOf(parsed: ParsedArgs, io: CommandIo, command: string, options: { timestamps?: boolean } = {}): Output {
  if (parsed.values.quiet && parsed.values.verbose) throw new UsageError('--quiet and --verbose contradict each other; pass one');
  const format = stringFlag(parsed, 'log-format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--log-format: expected text or json, got ${JSON.stringify(format)}`);
  const verbosity: Verbosity = parsed.values.quiet ? 'quiet' : parsed.values.verbose ? 'verbose' : 'normal';
  return new Output({ stream: io.stderr, isTTY: io.isTTY, verbosity, format: format as LogFormat, command, timestamps: options.timestamps ?? false });
}
