/** Fetches every body a mirror would (lists and every single view), as the tests of the realistic profile read them. */
import { RESOURCE_NAMES, RESOURCES, singlePath, type ResourceName } from '../../src/spec/resources.js';
import type { Upstream } from '../../src/upstream/index.js';
import { getJson } from './helpers.js';

export type Item = Record<string, unknown> & { id: string };

/** The parsed lists and single views of every resource. */
export interface Pull {
  lists: Record<ResourceName, Item[]>;
  singles: Record<ResourceName, Map<string, Item>>;
}

/** GETs each list and then each listed record's single view, a few at a time. */
export async function pullAll(upstream: Upstream): Promise<Pull> {
  const lists = {} as Pull['lists'];
  const singles = {} as Pull['singles'];
  for (const resource of RESOURCE_NAMES) {
    lists[resource] = (await getJson<Record<string, Item[]>>(upstream, `/${resource}.json`))[resource]!;
    const views = new Map<string, Item>();
    const ids = lists[resource].map((item) => item.id);
    for (let i = 0; i < ids.length; i += 16) {
      const batch = ids.slice(i, i + 16);
      const bodies = await Promise.all(batch.map((id) => getJson<Record<string, Item>>(upstream, singlePath(resource, id))));
      bodies.forEach((body, j) => views.set(batch[j]!, body[RESOURCES[resource].singular]!));
    }
    singles[resource] = views;
  }
  return { lists, singles };
}
