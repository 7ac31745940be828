/**
 * The simulated service for tests, always closed: `useUpstream` for a whole test file (closed
 * after its tests), `withUpstream` inside one test (closed when that test finishes, pass or fail).
 * Both render the spec-exact profile unless a test asks for `profile: 'realistic'`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import { startUpstream, type Upstream, type UpstreamOptions } from '../../src/upstream/index.js';
import { tempDir } from './tmp.js';

export const TOKEN = 'test-token-5f2c9a7e41d8';

/** A file holding TOKEN (mode 600, as an operator would keep it), for `--token-file`; removed after the test. */
export function tokenFile(): string {
  const file = join(tempDir(), 'token');
  writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
  return file;
}

/** A running simulated service with the test token, for the file's tests (call at the top level). */
export async function useUpstream(options: Partial<UpstreamOptions> = {}): Promise<Upstream> {
  const upstream = await startUpstream({ token: TOKEN, scale: 60, profile: 'exact', ...options });
  afterAll(() => upstream.close());
  return upstream;
}

/** A running simulated service with the test token, for the current test only (call inside it). */
export async function withUpstream(options: Partial<UpstreamOptions> = {}): Promise<Upstream> {
  const upstream = await startUpstream({ token: TOKEN, scale: 60, profile: 'exact', ...options });
  onTestFinished(() => upstream.close());
  return upstream;
}

/** GETs a path from the service with the token; the parsed body and status. */
export async function upstreamGet(upstream: Upstream, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(upstream.url + path, { headers: { 'x-api-token': TOKEN } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
