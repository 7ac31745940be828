/**
 * Which records a record's body refers to, found in the data rather than hard-coded: the spec says
 * records refer to a server by its `id` or its `name`, and the service embeds associations as
 * objects with an `id` (`operating_system: {id, name, codename}`, `servers: [{id, name}]`). A key
 * names a resource when it is the resource's plural or singular name, or that with `_id(s)` or
 * `_name(s)`: strings under it are ids (`server_id`) or names (`server_names`, an application
 * instance's `servers`), objects under it are records by their `id`. An object with an `id` and a
 * `name` under any other key (an operating system's `parent`) is taken, tentatively, for a record
 * of the same resource: kept only where that record has that name (a server's `maintainer` is
 * not a server). An incremental sync fetches a record again when one it refers to changed.
 *
 * A reference is written `<resource index><kind><segment>`: kind `/` an id, `~` a name, `?` a
 * tentative id and name (`<id>/<name>`); each segment in file-name form (snapshot/paths.ts),
 * which holds no space or slash, so a record's references join into one space-separated string.
 */
import { decodeSegment, encodeSegment } from '../snapshot/paths.js';
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';

interface KeyTarget {
  index: number;
  /** Strings under the key are ids (else names). */
  byId: boolean;
}

const KEYS = new Map<string, KeyTarget>();
RESOURCE_NAMES.forEach((resource, index) => {
  const { singular } = RESOURCES[resource];
  for (const key of [resource, singular, `${singular}_name`, `${singular}_names`]) KEYS.set(key, { index, byId: false });
  for (const key of [`${singular}_id`, `${singular}_ids`]) KEYS.set(key, { index, byId: true });
});

/** The references of one record's single view (`record`, of `resource`), unresolved, sorted and distinct. */
export function referencesOf(resource: ResourceName, record: Record<string, unknown>): string[] {
  const own = RESOURCE_NAMES.indexOf(resource);
  const found = new Set<string>();
  const walk = (value: unknown, target: KeyTarget | undefined): void => {
    if (typeof value === 'string') {
      if (target && value !== '') found.add(`${target.index}${target.byId ? '/' : '~'}${encodeSegment(value)}`);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      for (const element of value) walk(element, target);
      return;
    }
    const object = value as Record<string, unknown>;
    if (typeof object.id === 'string' && object.id !== '') {
      if (target) found.add(`${target.index}/${encodeSegment(object.id)}`);
      else if (typeof object.name === 'string') found.add(`${own}?${encodeSegment(object.id)}/${encodeSegment(object.name)}`);
    }
    fields(object);
  };
  const fields = (object: Record<string, unknown>): void => {
    for (const key of Object.keys(object)) if (key !== 'id') walk(object[key], KEYS.get(key));
  };
  fields(record);
  return [...found].sort();
}

/** What a reference stands for; `name`: a tentative reference's. */
export type Reference = { resource: ResourceName; kind: 'id' | 'name' | 'tentative'; value: string; segment: string; name?: string };

/** Reads a reference back; undefined for one this version does not write. */
export function parseReference(reference: string): Reference | undefined {
  const match = /^(\d)(?:([/~])([^/]+)|\?([^/]+)\/(.+))$/.exec(reference);
  const resource = match ? RESOURCE_NAMES[Number(match[1])] : undefined;
  if (!match || !resource) return undefined;
  const segment = match[3] ?? match[4]!;
  const value = decodeSegment(segment);
  if (value === undefined) return undefined;
  if (match[2]) return { resource, kind: match[2] === '/' ? 'id' : 'name', value, segment };
  const name = decodeSegment(match[5]!);
  return name === undefined ? undefined : { resource, kind: 'tentative', value, segment, name };
}

/** The form a reference by id is stored in. */
export const idReference = (resource: ResourceName, id: string): string => `${RESOURCE_NAMES.indexOf(resource)}/${encodeSegment(id)}`;

/** The form a reference by name is stored in. */
export const nameReference = (resource: ResourceName, name: string): string => `${RESOURCE_NAMES.indexOf(resource)}~${encodeSegment(name)}`;

/**
 * A record's references as stored: names resolved to ids where a record has that name now (a
 * renamed record is then found by its id), tentative ids kept only where that record has that
 * name; undefined when there are none.
 */
export function resolveReferences(raw: readonly string[], idOfName: (resource: ResourceName, name: string) => string | undefined): string | undefined {
  const resolved = new Set<string>();
  for (const reference of raw) {
    const parsed = parseReference(reference);
    if (!parsed) continue;
    if (parsed.kind === 'id') resolved.add(reference);
    else if (parsed.kind === 'tentative') {
      if (idOfName(parsed.resource, parsed.name!) === parsed.value) resolved.add(idReference(parsed.resource, parsed.value));
    } else {
      const id = idOfName(parsed.resource, parsed.value);
      resolved.add(id === undefined ? reference : idReference(parsed.resource, id));
    }
  }
  return resolved.size === 0 ? undefined : [...resolved].sort().join(' ');
}
