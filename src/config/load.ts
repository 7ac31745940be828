/**
 * Loads the config file: JSON → strip `$comment` keys → strict schema → defaults. Every problem
 * is one ConfigError line of the form `FILE: dot.path: what is wrong`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { configSchema, type Config } from './schema.js';

const DEFAULT_CONFIG_PATH = 'config/mirror.json';

/** Drops `$comment` keys at any depth, so the example file can explain itself. */
function stripComments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripComments);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '$comment').map(([key, v]) => [key, stripComments(v)]));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k));
    return `unknown key${keys.length > 1 ? 's' : ''} ${keys.join(', ')} (see config/mirror.example.json for the settings)`;
  }
  return `${path || '(top level)'}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/** JSON.parse's message with its character position told as line and column, as editors count them. */
function jsonErrorAt(text: string, message: string): string {
  const match = / in JSON at position (\d+)/.exec(message);
  if (!match) return message;
  const position = Math.min(Number(match[1]), text.length);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `${message.slice(0, match.index)} at line ${line}, column ${column}`;
}

/** Validates a parsed config object; `source` names it in errors. */
export function parseConfig(raw: unknown, source: string): Config {
  const result = configSchema.safeParse(stripComments(raw ?? {}));
  if (!result.success) {
    throw new ConfigError(`${source}: ${result.error.issues.map(describeIssue).join('; ')}`);
  }
  return result.data;
}

/**
 * Reads the config file as JSON, without checking it (a command lays its flags over it and then
 * parses the whole once): `explicitPath` must exist; without it `config/mirror.json` is used when
 * present, else nothing. `source` names it in messages.
 */
export function readConfigFile(explicitPath: string | undefined, cwd: string): { raw: Record<string, unknown>; source: string; path: string | undefined } {
  const path = resolve(cwd, explicitPath ?? DEFAULT_CONFIG_PATH);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (explicitPath === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return { raw: {}, source: 'settings', path: undefined };
    throw new ConfigError(`cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON: ${jsonErrorAt(text, (error as Error).message)}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`${path}: expected a JSON object at the top level`);
  return { raw: stripComments(raw) as Record<string, unknown>, source: path, path };
}

/** Reads and checks the config (see readConfigFile); the built-in defaults when there is none. */
export function loadConfig(explicitPath: string | undefined, cwd: string): { config: Config; path: string | undefined } {
  const { raw, source, path } = readConfigFile(explicitPath, cwd);
  return { config: parseConfig(raw, source), path };
}
