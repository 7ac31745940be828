/**
 * Finds the service token: `--token-file`, then INVENTORY_API_TOKEN, then
 * INVENTORY_API_TOKEN_FILE, then the config's `tokenFile`. Read once; never echoed.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';

interface TokenSource {
  flagFile?: string | undefined;
  configFile?: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Name of the environment variable holding the token itself. */
  envVar: string;
  /** Name of the environment variable holding a token file path, if any. */
  envFileVar?: string;
}

interface ResolvedToken {
  token: string;
  warnings: string[];
  /** Where it came from, for messages: `the token file /etc/x (--token-file)`. */
  from: string;
}

/** Reads a token file: trims the final newline, refuses an empty file, warns when others can read it. */
function readTokenFile(file: string, cwd: string, setting: string): ResolvedToken {
  const path = resolve(cwd, file);
  const warnings: string[] = [];
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    if ((statSync(path).mode & 0o004) !== 0) warnings.push(`token file ${path} is readable by every user; restrict it with chmod 600`);
  } catch (error) {
    throw new ConfigError(`cannot read token file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return { token: checkToken(text.replace(/\r?\n$/, ''), `token file ${path}`), warnings, from: `the token file ${path} (${setting})` };
}

function checkToken(token: string, source: string): string {
  if (token.length === 0) throw new ConfigError(`${source} is empty`);
  // A header value cannot carry control characters; say so without showing the value.
  if (/[\0-\x1f\x7f]/.test(token)) throw new ConfigError(`${source} contains control characters (a stray newline?); a token is one line`);
  return token;
}

/** Resolves the token or returns undefined when no source is set. */
export function resolveToken(source: TokenSource): ResolvedToken | undefined {
  if (source.flagFile) return readTokenFile(source.flagFile, source.cwd, '--token-file');
  const direct = source.env[source.envVar];
  if (direct !== undefined && direct !== '') return { token: checkToken(direct, source.envVar), warnings: [], from: `the token in ${source.envVar}` };
  const envFile = source.envFileVar ? source.env[source.envFileVar] : undefined;
  if (envFile) return readTokenFile(envFile, source.cwd, source.envFileVar!);
  if (source.configFile) return readTokenFile(source.configFile, source.cwd, 'the config\'s tokenFile');
  return undefined;
}
