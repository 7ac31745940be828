/**
 * zod schemas written from `spec/inventory-api.md`, list items and single views apart.
 * Objects are loose: fields the spec does not list are kept, never stripped. The schemas only
 * judge the fields the spec documents; what they report are field-level warnings, while the
 * structural checks (envelope, ids) live in `validate/structure.ts`.
 */
import { z } from 'zod';
import type { ResourceName } from './resources.js';

const ip = z.union([z.ipv4(), z.ipv6()], { error: 'expected an IP address' });

const applicationSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
});

const operatingSystemSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  codename: z.string(),
});

const serverListItemSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  hypervisor_name: z.string().nullable(),
  memory_GB: z.number(),
  processor_system_count: z.int(),
  processor_reference: z.string(),
  processor_frequency_GHz: z.number(),
  extended_attributes: z.record(z.string(), z.unknown()),
});

const serverSchema = serverListItemSchema.extend({ ip });

const instanceListItemSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  listen_address: ip,
  listen_port: z.int(),
  host_alias: z.string(),
  version: z.string(),
});

const instanceSchema = instanceListItemSchema.extend({
  config: z.record(z.string(), z.unknown()),
  databases: z.record(z.string(), z.int()),
});

const databaseListItemSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  server_names: z.array(z.string()),
  instances: z.array(instanceListItemSchema),
});

const databaseSchema = databaseListItemSchema.extend({
  servers: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  instances: z.array(instanceSchema),
});

const appserverSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  vip: z.string(),
  dns: z.string(),
  directory: z.string(),
  appserver_version: z.string(),
  runtime_version: z.string(),
  runtime_xms: z.string(),
  runtime_xmx: z.string(),
  dbconn_url: z.string(),
  dbconn_server: z.string(),
  dbconn_db: z.string(),
  dbconn_user: z.string(),
  dbconn_driver: z.string(),
  guard: z.boolean(),
  guard_csac: z.boolean(),
  server_id: z.string(),
  server_name: z.string(),
});

/** Any record: an object with a string id and whatever else the service sent. */
export type RawRecord = { id: string } & Record<string, unknown>;

export const SCHEMAS: Readonly<Record<ResourceName, { list: z.ZodType; single: z.ZodType }>> = {
  applications: { list: applicationSchema, single: applicationSchema },
  databases: { list: databaseListItemSchema, single: databaseSchema },
  operating_systems: { list: operatingSystemSchema, single: operatingSystemSchema },
  servers: { list: serverListItemSchema, single: serverSchema },
  appservers: { list: appserverSchema, single: appserverSchema },
};
