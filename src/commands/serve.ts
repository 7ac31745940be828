/**
 * `serve`: answers the service's API from a published folder until SIGINT or SIGTERM. The token,
 * when one is set, comes from `--token-file`, MIRROR_API_TOKEN, MIRROR_API_TOKEN_FILE or the
 * config's `serve.tokenFile`.
 */
import { untilStopSignal } from '../cli/signals.js';
import { CONFIG_OPTION, DIR_OPTION, intFlag, outputFolder, stringFlag, type CommandDefinition } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { resolveToken } from '../config/token.js';
import { startServe } from '../serve/index.js';
import { printable } from '../util/printable.js';

export const serveCommand: CommandDefinition = {
  options: {
    dir: DIR_OPTION,
    port: { type: 'string', value: 'PORT', description: 'port to listen on (config serve.port, default 8080; 0 picks a free one)' },
    host: { type: 'string', value: 'HOST', description: 'address to bind (config serve.host, default 127.0.0.1)' },
    'token-file': { type: 'string', value: 'FILE', description: 'require X-Api-Token to match this file (else env MIRROR_API_TOKEN, MIRROR_API_TOKEN_FILE, config serve.tokenFile)' },
    'case-sensitive': { type: 'boolean', description: 'match substring filters case-sensitively (config serve.caseSensitive; the service ignores case)' },
    config: CONFIG_OPTION,
    quiet: { type: 'boolean', short: 'q', description: 'no per-request log lines' },
  },
  async run(parsed, io) {
    const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
    const token = resolveToken({ flagFile: stringFlag(parsed, 'token-file'), configFile: config.serve.tokenFile, env: io.env, cwd: io.cwd, envVar: 'MIRROR_API_TOKEN', envFileVar: 'MIRROR_API_TOKEN_FILE' });
    for (const warning of token?.warnings ?? []) io.stderr.write(`warning: ${warning}\n`);
    const running = await startServe({
      dir: outputFolder(stringFlag(parsed, 'dir'), io, config),
      host: stringFlag(parsed, 'host') ?? config.serve.host,
      port: intFlag(parsed, 'port', 0, 65_535) ?? config.serve.port,
      token: token?.token,
      caseSensitive: Boolean(parsed.values['case-sensitive']) || config.serve.caseSensitive,
      quiet: Boolean(parsed.values.quiet),
      log: (line) => io.stdout.write(`${printable(line)}\n`),
    });
    await untilStopSignal();
    await running.close();
    return 0;
  },
};
