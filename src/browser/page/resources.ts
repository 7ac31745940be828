/**
 * What the page knows of each resource: its default columns, its facets, and which columns name
 * another record. Typed by the spec module the sync uses, so a resource the spec adds or renames
 * fails the page's type check until it is described here too.
 */
import type { ResourceName } from '../../spec/resources.js';

/** What a person looks at first; every other column is one click away in the column chooser. */
export const DEFAULT_COLS: Record<ResourceName, readonly string[]> = {
  servers: ['name', 'ip', 'operating_system', 'memory_GB', 'processor_system_count', 'virtual', 'hypervisor_name', 'site'],
  appservers: ['name', 'dns', 'server_name', 'runtime_version', 'appserver_version'],
  databases: ['name', 'type', 'servers', 'instances'],
  applications: ['name', 'description'],
  operating_systems: ['name', 'codename', 'parent'],
};

/**
 * Facets, where the table has the column: the service's own filters (by_system, by_virtual,
 * by_location as site, room and rack, by_maintainer, by_fullmodel as model, by_serial_number,
 * by_arch, by_type; the sync fills these columns from the configured views), the fields
 * people group by, and `_changed`: whether the last sync added or changed the record.
 */
export const FACETS: Record<ResourceName, readonly string[]> = {
  servers: ['_changed', 'operating_system', 'virtual', 'site', 'room', 'rack', 'location.site', 'location.room', 'maintainer', 'hardware.manufacturer', 'hardware.model', 'model', 'arch', 'serial_number'],
  databases: ['_changed', 'type'],
  appservers: ['_changed', 'runtime_version', 'server_name', 'appserver_version', 'dbconn_server', 'dbconn_db'],
  operating_systems: ['_changed', 'parent'],
  applications: ['_changed'],
};

/** Columns that name another record, and the resource it is in. */
export const TARGET = new Map<string, ResourceName>([
  ['operating_system', 'operating_systems'],
  ['parent', 'operating_systems'],
  ['server', 'servers'],
  ['servers', 'servers'],
  ['server_id', 'servers'],
  ['server_name', 'servers'],
]);
