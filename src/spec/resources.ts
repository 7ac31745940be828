/**
 * The service's resources, endpoints and filters as `spec/inventory-api.md` describes them.
 * Everything else (fetch, publish, serve, the simulated upstream) reads this table rather than
 * repeating resource names or filter rules.
 */
export const RESOURCE_NAMES = ['applications', 'databases', 'operating_systems', 'servers', 'appservers'] as const;
export type ResourceName = (typeof RESOURCE_NAMES)[number];

/**
 * How a list filter's values are known:
 * - `substring`: free text matched case-insensitively against `field`; evaluated locally by `serve`.
 * - `os-ids`: one value per operating-system id; only the service knows the system tree, so fetched.
 * - `fixed`: a closed set of values, all fetched.
 * - `field`: the distinct values of `field` in the list, all fetched.
 * - `config`: values cannot be discovered from the data; the user lists them in the config.
 */
type FilterValues =
  | { kind: 'substring'; field: string }
  | { kind: 'os-ids' }
  | { kind: 'fixed'; values: readonly string[] }
  | { kind: 'field'; field: string }
  | { kind: 'config' };

export interface FilterSpec {
  readonly param: string;
  readonly values: FilterValues;
}

interface ResourceSpec {
  readonly name: ResourceName;
  /** Envelope key of the single-record endpoint. */
  readonly singular: string;
  readonly filters: readonly FilterSpec[];
}

const substring = (param: string, field: string): FilterSpec => ({ param, values: { kind: 'substring', field } });
/** A filter whose values the user lists in the config; its name stays a literal type, for the config schema. */
const configured = <const P extends string>(param: P) => ({ param, values: { kind: 'config' } }) as const;

const SPECS = {
  applications: { name: 'applications', singular: 'application', filters: [substring('search', 'name')] },
  databases: {
    name: 'databases',
    singular: 'database',
    filters: [
      substring('by_name', 'name'),
      { param: 'by_type', values: { kind: 'field', field: 'type' } },
      { param: 'include', values: { kind: 'fixed', values: ['servers'] } },
    ],
  },
  operating_systems: { name: 'operating_systems', singular: 'operating_system', filters: [] },
  servers: {
    name: 'servers',
    singular: 'server',
    filters: [
      substring('search', 'name'),
      configured('by_location'),
      configured('by_maintainer'),
      { param: 'by_system', values: { kind: 'os-ids' } },
      { param: 'by_virtual', values: { kind: 'fixed', values: ['0', '1'] } },
      configured('by_serial_number'),
      configured('by_arch'),
      configured('by_fullmodel'),
    ],
  },
  appservers: {
    name: 'appservers',
    singular: 'appserver',
    filters: [
      substring('by_name', 'name'),
      substring('by_dns', 'dns'),
      substring('by_runtime_version', 'runtime_version'),
      substring('by_server_name', 'server_name'),
    ],
  },
} as const satisfies Record<ResourceName, ResourceSpec>;

export const RESOURCES: Readonly<Record<ResourceName, ResourceSpec>> = SPECS;

/** The names of a resource's `config` filters. */
export type ConfiguredFilter<R extends ResourceName> = Extract<(typeof SPECS)[R]['filters'][number], { values: { kind: 'config' } }>['param'];
/** The resources that have `config` filters. */
export type ConfiguredResource = { [R in ResourceName]: [ConfiguredFilter<R>] extends [never] ? never : R }[ResourceName];

/** A resource's `config` filters, in the spec's order. */
export function configuredFilters<R extends ConfiguredResource>(resource: R): ConfiguredFilter<R>[] {
  return RESOURCES[resource].filters.filter((f) => f.values.kind === 'config').map((f) => f.param as ConfiguredFilter<R>);
}

/**
 * Fields the API document itself places in the single view only (so their absence from list items
 * is no finding and no fact worth reporting), as field paths with `[]` for array elements.
 */
export const SINGLE_ONLY_FIELDS: Readonly<Partial<Record<ResourceName, readonly string[]>>> = {
  servers: ['ip'],
  databases: ['servers', 'instances[].config', 'instances[].databases'],
};

/**
 * Records of one resource that appear inside another's bodies: a redaction policy for the inner
 * resource applies there too. `path` is a field path with `[]` for array elements.
 */
export const EMBEDDED: Readonly<Partial<Record<ResourceName, readonly { path: string; resource: ResourceName }[]>>> = {
  databases: [{ path: 'servers[]', resource: 'servers' }],
  servers: [{ path: 'operating_system', resource: 'operating_systems' }],
  appservers: [{ path: 'server', resource: 'servers' }],
};

export const listPath = (resource: ResourceName): string => `/${resource}.json`;
export const singlePath = (resource: ResourceName, id: string): string => `/${resource}/${encodeURIComponent(id)}.json`;
export const filterPath = (resource: ResourceName, param: string, value: string): string =>
  `/${resource}.json?${encodeURIComponent(param)}=${encodeURIComponent(value)}`;

const LIST_PATH = /^\/([a-z_]+)\.json$/;
// An encoded id holds no raw '/', so '/servers/a%2Fb.json' is id "a/b" and '/servers/a/b.json' is nothing.
const SINGLE_PATH = /^\/([a-z_]+)\/([^/]+)\.json$/;

/** The endpoint a request path (without its query) has the shape of; the resource is not checked, the id still percent-encoded. */
export function parseEndpoint(path: string): { kind: 'list'; resource: string } | { kind: 'single'; resource: string; encodedId: string } | undefined {
  const list = LIST_PATH.exec(path);
  if (list) return { kind: 'list', resource: list[1]! };
  const single = SINGLE_PATH.exec(path);
  return single ? { kind: 'single', resource: single[1]!, encodedId: single[2]! } : undefined;
}

export function isResourceName(value: string): value is ResourceName {
  return (RESOURCE_NAMES as readonly string[]).includes(value);
}
