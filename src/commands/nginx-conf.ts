/** `nginx-conf --dir DIR [--port PORT | --listen ADDR]`: prints an nginx configuration that serves the folder at the service's URLs. */
import { CONFIG_OPTION, DIR_OPTION, intFlag, outputFolder, stringFlag, type CommandDefinition } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { UsageError } from '../errors.js';
import { findSpecials, parseListen, renderNginxConf } from '../serve/nginx.js';

export const nginxConfCommand: CommandDefinition = {
  options: {
    dir: DIR_OPTION,
    port: { type: 'string', value: 'PORT', description: 'port nginx listens on, on every address (default 8080)' },
    listen: { type: 'string', value: 'ADDR', description: 'address and port instead of --port: 127.0.0.1:8080, [::1]:8080, *:8080' },
    'server-name': { type: 'string', value: 'NAME', description: 'server_name of the block (default _, any name)' },
    config: CONFIG_OPTION,
  },
  async run(parsed, io) {
    const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
    const root = outputFolder(stringFlag(parsed, 'dir'), io, config);
    const serverName = stringFlag(parsed, 'server-name') ?? '_';
    if (!/^[A-Za-z0-9._*~-]+$/.test(serverName)) throw new UsageError(`--server-name: ${JSON.stringify(serverName)} is not a host name (letters, digits, . - * only)`);
    if (/[\s;{}"'$\\]/.test(root)) throw new UsageError(`--dir: ${JSON.stringify(root)} holds characters nginx would misread (space ; { } quotes $ \\); move or link the folder to a plain path`);
    const listenFlag = stringFlag(parsed, 'listen');
    const port = intFlag(parsed, 'port', 1, 65_535);
    if (listenFlag !== undefined && port !== undefined) throw new UsageError('--listen and --port both say where nginx listens; pass one (--listen 127.0.0.1:8080 holds the port)');
    const listen = listenFlag !== undefined ? parseListen(listenFlag) : String(port ?? 8080);
    const specials = await findSpecials(root);
    io.stdout.write(renderNginxConf({ root, listen, serverName, specials }));
    return 0;
  },
};
