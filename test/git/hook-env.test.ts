/**
 * Our secrets stay in our process: git (and so every hook a repository runs) gets an environment
 * without the service token, the serve token, or the names of their files.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, SECRET_ENV as SECRET_VARIABLES } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { runCli } from '../helpers/cli.js';

const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const upstream = await useUpstream({ scale: 5, seed: 3 });

describe('child processes get no secrets', () => {
  it('sync --git: a post-commit hook sees neither the tokens nor their files', async () => {
    const repo = tempDir();
    execFileSync('git', ['init', '--quiet'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });
    const dump = join(tempDir(), 'hook-env.txt');
    const hook = join(repo, '.git', 'hooks', 'post-commit');
    writeFileSync(hook, `#!/bin/sh\nenv > '${dump}'\n`);
    chmodSync(hook, 0o755);
    const tokenFile = join(tempDir(), 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const env = { ...GIT_ENV, INVENTORY_API_TOKEN: TOKEN, INVENTORY_API_TOKEN_FILE: tokenFile, MIRROR_API_TOKEN: 'serve-secret-9a7e', MIRROR_API_TOKEN_FILE: tokenFile, KEEP_THIS: 'kept' };
    const result = await runCli(['sync', '--git', '--base-url', upstream.url, '--out', join(repo, 'mirror')], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(dump)).toBe(true);
    const seen = readFileSync(dump, 'utf8');
    expect(seen).toContain('KEEP_THIS=kept');
    for (const secret of [TOKEN, 'serve-secret-9a7e', tokenFile, ...SECRET_VARIABLES]) expect(seen).not.toContain(secret);
  });

  it('childEnv drops exactly the secret variables and adds what is asked', () => {
    const env = childEnv({ GIT_TERMINAL_PROMPT: '0' }, { PATH: '/bin', INVENTORY_API_TOKEN: 'x', INVENTORY_API_TOKEN_FILE: '/t', MIRROR_API_TOKEN: 'y', MIRROR_API_TOKEN_FILE: '/u', INVENTORY_BASE_URL: 'http://h' });
    expect(env).toEqual({ PATH: '/bin', INVENTORY_BASE_URL: 'http://h', GIT_TERMINAL_PROMPT: '0' });
  });
});
