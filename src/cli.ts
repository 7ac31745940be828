#!/usr/bin/env node
/**
 * The command-line entry: picks the command, parses its flags, runs it, and is the one place
 * where errors become a one-line message and an exit status.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commandHelp, parseCommandArgs, type Command, type CommandIo } from './cli/command.js';
import { COMMANDS } from './commands/index.js';
import { withHint } from './cli/hints.js';
import { describeFsError, MirrorError } from './errors.js';
import { boundHeapGrowth } from './util/heap-growth.js';
import { printable, printableLines } from './util/printable.js';
import { scrub } from './util/secrets.js';

// What a sync or serve keeps alive is small (60 MB at 200 000 servers) but the garbage between
// collections is not; containers have memory limits (see util/heap-growth.ts).
boundHeapGrowth();

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    'Usage: inventory-mirror <command> [options]',
    '',
    'Mirror a read-only inventory (CMDB) JSON API into a validated static file tree.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Options:',
    '  -h, --help      this help',
    '      --version   the version of inventory-mirror',
    '',
    'Run `inventory-mirror <command> --help` for the options of a command.',
    '',
  ].join('\n');
}

/** Runs the CLI with the given arguments; resolves to the exit status. */
export async function main(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(topHelp());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`inventory-mirror: unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.map((c) => c.name).join(', ')}\n`);
    return 2;
  }
  if (process.title.startsWith('inventory-mirror')) process.title = `inventory-mirror ${entry.name}`;
  // Asked for JSON lines, a log collector must get the fatal error as one too.
  let json = false;
  try {
    const command: Command = { name: entry.name, summary: entry.summary, ...(await entry.load()) };
    const parsed = parseCommandArgs(command, rest);
    json = parsed !== 'help' && parsed.values['log-format'] === 'json';
    if (parsed === 'help') {
      io.stdout.write(commandHelp(command));
      return 0;
    }
    return await command.run(parsed, io);
  } catch (error) {
    // One line (a stack trace: its lines), secrets scrubbed first, control characters escaped; a
    // JSON line when asked for JSON lines.
    const say = (text: string, code?: string, lines = false): void =>
      void io.stderr.write(
        json
          ? `${scrub(JSON.stringify({ time: new Date().toISOString(), level: 'error', command: entry.name, message: text, ...(code ? { code } : {}) }))}\n`
          : `inventory-mirror ${entry.name}: ${(lines ? printableLines : printable)(scrub(text))}\n`,
      );
    if (error instanceof MirrorError) {
      say(withHint(error), error.code);
      return error.exitCode;
    }
    // A filesystem error nothing closer caught: a clear line naming the path, not "a bug".
    const fs = describeFsError(error);
    if (fs) {
      say(fs);
      return 1;
    }
    say(`internal error (a bug, please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, undefined, true);
    return 70;
  }
}

/** The package's version, from package.json beside dist/. */
function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The process-level IO the CLI runs with. */
export function processIo(): CommandIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), isTTY: Boolean(process.stderr.isTTY) };
}

function isEntry(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntry()) {
  process.title = 'inventory-mirror';
  // `inventory-mirror sync --dry-run -q 2>&1 | head -2`: the reader left, which is not the command failing.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  let settled = false;
  // A command whose work was lost (a promise nothing will settle) must not pass for a success in cron.
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('inventory-mirror: internal error: the command stopped without finishing (a bug, please report it)\n');
    process.exitCode = 70;
  });
  main(process.argv.slice(2), processIo()).then(
    (status) => {
      settled = true;
      process.exitCode = status;
    },
    (error: unknown) => {
      settled = true;
      process.stderr.write(`inventory-mirror: internal error: ${String(error)}\n`);
      process.exitCode = 70;
    },
  );
}
