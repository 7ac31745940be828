/** Requests to the simulated service with the test token, for the tests of the service itself. */
import type { Upstream } from '../../src/upstream/index.js';
import { TOKEN } from '../helpers/upstream.js';

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
