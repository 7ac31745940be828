/** Starts the simulated upstream for a test file and closes it afterwards. */
import { afterAll, beforeAll } from 'vitest';
import { startUpstream, type Upstream, type UpstreamOptions } from '../../src/upstream/index.js';

export const TOKEN = 'test-token-5e3c1a';

/** A running upstream for the enclosing describe block; read `.current` inside tests. */
export function useUpstream(options: Partial<UpstreamOptions> = {}): { current: Upstream } {
  const holder = {} as { current: Upstream };
  beforeAll(async () => {
    holder.current = await startUpstream({ token: TOKEN, scale: 50, profile: 'exact', ...options });
  });
  afterAll(async () => {
    await holder.current?.close();
  });
  return holder;
}

/** GET (or another method) with the test token unless headers say otherwise. */
export function get(upstream: Upstream, path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(upstream.url + path, { ...init, headers: { 'X-Api-Token': TOKEN, ...init.headers } });
}

/** GET and parse a 200 JSON body. */
export async function getJson<T = Record<string, unknown>>(upstream: Upstream, path: string): Promise<T> {
  const res = await get(upstream, path);
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** The ids of a list answer. */
export async function listIds(upstream: Upstream, path: string): Promise<string[]> {
  const body = await getJson<Record<string, { id: string }[]>>(upstream, path);
  const [items] = Object.values(body);
  return items!.map((item) => item.id);
}
