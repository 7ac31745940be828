/** Starts the simulated service for a test file and closes it afterwards. */
import { afterAll } from 'vitest';
import { startUpstream, type Upstream, type UpstreamOptions } from '../../src/upstream/index.js';

export const TOKEN = 'test-token-5f2c9a7e41d8';

/** A running simulated service with the test token, closed after the file's tests. */
export async function useUpstream(options: Partial<UpstreamOptions> = {}): Promise<Upstream> {
  const upstream = await startUpstream({ token: TOKEN, scale: 60, profile: 'exact', ...options });
  afterAll(() => upstream.close());
  return upstream;
}

/** GETs a path from the service with the token; the parsed body and status. */
export async function upstreamGet(upstream: Upstream, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(upstream.url + path, { headers: { 'x-api-token': TOKEN } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}
