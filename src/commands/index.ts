/** The registry of commands, in the order `--help` lists them. */
import type { Command } from '../cli/command.js';
import { syncCommand } from './sync.js';
import { verifyCommand } from './verify.js';
import { upstreamCommand } from './upstream.js';
import { serveCommand } from './serve.js';
import { nginxConfCommand } from './nginx-conf.js';
import { diffCommand } from './diff.js';
import { scheduleCommand } from './schedule.js';
import { packCommand } from './pack.js';
import { unpackCommand } from './unpack.js';
import { keygenCommand } from './keygen.js';

export const COMMANDS: Command[] = [syncCommand, scheduleCommand, verifyCommand, diffCommand, packCommand, unpackCommand, keygenCommand, serveCommand, nginxConfCommand, upstreamCommand];
