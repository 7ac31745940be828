/**
 * A real nginx serving a published folder with the generated configuration, as a child process
 * on a loopback port: for the benchmark and the nginx test. One worker, like serve's one thread.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { findSpecials, renderNginxConf } from '../../src/serve/nginx.js';
import { childEnv } from '../../src/util/secrets.js';

export interface RunningNginx {
  url: string;
  stop(): Promise<void>;
}

/** Whether an nginx binary is on PATH. */
export function hasNginx(): boolean {
  return spawnSync('nginx', ['-v'], { env: childEnv() }).status === 0;
}

/**
 * Starts nginx on `dir`. `site` renders the server block for a port (default: the generated
 * configuration, listening on `host`, default 127.0.0.1, where the readiness check goes too);
 * `accessLog` keeps a log in the work folder (default off, for benchmarks).
 */
export async function startNginx(dir: string, options: { site?: (port: number) => Promise<string>; accessLog?: boolean; host?: string } = {}): Promise<RunningNginx> {
  const work = mkdtempSync(join(tmpdir(), 'im-nginx-'));
  const port = await freePort();
  const host = options.host ?? '127.0.0.1';
  const site = options.site ? await options.site(port) : renderNginxConf({ root: dir, listen: `${host}:${port}`, serverName: '_', specials: await findSpecials(dir) });
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => {
    mkdirSync(join(work, kind));
    return `  ${kind}_temp_path ${join(work, kind)};`;
  });
  // As root nginx drops to "nobody", who cannot read a 0700 temp folder.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const accessLog = options.accessLog ? join(work, 'access.log') : 'off';
  writeFileSync(join(work, 'nginx.conf'), `${user}worker_processes 1;\nevents { worker_connections 1024; }\nhttp {\n  access_log ${accessLog};\n${temps.join('\n')}\n${site}\n}\n`);
  const child = spawn('nginx', ['-p', work, '-c', join(work, 'nginx.conf'), '-g', `daemon off; pid ${join(work, 'nginx.pid')}; error_log ${join(work, 'error.log')};`], { stdio: 'ignore', env: childEnv() });
  const url = `http://${host}:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(work, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) {
      const log = readFileSync(join(work, 'error.log'), 'utf8').trim().split('\n').pop();
      await stop();
      throw new Error(`nginx exited at start: ${log}`);
    }
    if (await fetch(`${url}/servers.json`, { method: 'HEAD' }).then(() => true, () => false)) return { url, stop };
    await sleep(100);
  }
  await stop();
  throw new Error('nginx did not start listening within 10 s');
}
