/**
 * The one way tests start the simulated service: `useUpstream`, with one token, closed by the
 * test's own teardown.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startUpstream, type Upstream, type UpstreamOptions } from '../../src/upstream/index.js';
import { atTeardown } from './teardown.js';
import { tempDir } from './tmp.js';

export const TOKEN = 'test-token-5f2c9a7e41d8';

/** A file holding TOKEN (mode 600, as an operator would keep it), for `--token-file`; removed after the test. */
export function tokenFile(): string {
  const file = join(tempDir(), 'token');
  writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
  return file;
}

/**
 * The simulated service answering TOKEN (spec-exact profile, scale 60 unless asked otherwise),
 * closed by the teardown of the scope that starts it: inside a test, as that test finishes (pass
 * or fail); at a test file's top level, after the file's tests.
 */
export async function useUpstream(options: Partial<Omit<UpstreamOptions, 'token'>> = {}): Promise<Upstream> {
  const upstream = await startUpstream({ token: TOKEN, scale: 60, profile: 'exact', ...options });
  atTeardown(() => upstream.close());
  return upstream;
}

/** GETs a path from the service with the token; the parsed body and status. */
export async function upstreamGet(upstream: Upstream, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(upstream.url + path, { headers: { 'x-api-token': TOKEN } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
