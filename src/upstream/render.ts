/**
 * Records to response bodies. The service is a Rails app: compact JSON and a weak ETag over the
 * body. What a list item and a single view contain is the profile's business; this file turns
 * them into UTF-8 JSON and joins list bodies from already encoded items.
 */
import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceName } from '../spec/resources.js';
import type { View } from './data.js';
import type { Fields, Profile } from './profile.js';
import { hashString } from './random.js';
import { APP_OWNERS } from './vocab.js';

/** A rendered 200 body with its ETag. */
export interface Body {
  data: Buffer;
  etag: string;
}

/** Wraps an encoded JSON text as a body with a Rails-style weak ETag. */
function toBody(data: Buffer): Body {
  return { data, etag: `W/"${createHash('md5').update(data).digest('hex')}"` };
}

/**
 * Fields the spec does not list, as a real service grows them. They derive from the record's
 * content, so they stay byte-stable and change exactly when the record does.
 */
function extraFields(resource: ResourceName, view: View): Fields {
  const hash = hashString(`${resource}\u0000${JSON.stringify(view)}`);
  const updatedAt = new Date(Date.UTC(2026, 0, 1) + (hash % (365 * 86_400)) * 1000).toISOString();
  return {
    updated_at: updatedAt,
    meta: { source: 'inventory-sim', revision: (hash % 97) + 1, owner: { team: APP_OWNERS[hash % APP_OWNERS.length], contact: null } },
    tags: ['managed', resource],
  };
}

/** Appends `extra`'s fields that `record` does not already have. */
function withExtra(record: Fields, extra: Fields | undefined): Fields {
  if (!extra) return record;
  const out = { ...record };
  for (const [key, value] of Object.entries(extra)) if (!(key in out)) out[key] = value;
  return out;
}

/** Renders records the way one profile does, with or without the unlisted extra fields. */
export class Renderer {
  constructor(
    private readonly profile: Profile,
    private readonly extras: boolean,
  ) {}

  private extra(resource: ResourceName, view: View): Fields | undefined {
    return this.extras ? extraFields(resource, view) : undefined;
  }

  /** The list item as UTF-8 JSON. */
  item(resource: ResourceName, view: View): Buffer {
    return Buffer.from(JSON.stringify(withExtra(this.profile.item(resource, view), this.extra(resource, view))));
  }

  /** The single-view body. */
  single(resource: ResourceName, view: View): Body {
    const record = withExtra(this.profile.single(resource, view), this.extra(resource, view));
    return toBody(Buffer.from(`{${JSON.stringify(RESOURCES[resource].singular)}:${JSON.stringify(record)}}`));
  }

  /**
   * A database list item under `include=servers`. With references, `servers` follows the
   * documented fields as the single view has it; with list items, each server is embedded as
   * /servers.json renders it, after all the database's fields, as a Rails `include:` serializes.
   */
  itemWithServers(view: View, item: Buffer, serverItem: (id: string) => Buffer | undefined): Buffer {
    const servers = Array.isArray(view.servers) ? (view.servers as { id?: unknown }[]) : [];
    if (this.profile.includeServers === 'references') {
      return Buffer.from(JSON.stringify(withExtra({ ...this.profile.item('databases', view), servers }, this.extra('databases', view))));
    }
    const embedded = servers.flatMap((server) => (typeof server.id === 'string' ? (serverItem(server.id) ?? []) : []));
    return joinJson(Buffer.concat([item.subarray(0, -1), Buffer.from(',"servers":[')]), embedded, ']}');
  }
}

/** A list body from encoded items. */
export function listBody(resource: ResourceName, items: readonly Buffer[]): Body {
  return toBody(joinJson(`{${JSON.stringify(resource)}:[`, items, ']}'));
}

/** head, the parts separated by commas, tail: one allocation, however many parts. */
function joinJson(head: string | Buffer, parts: readonly Buffer[], tail: string): Buffer {
  const headBytes = typeof head === 'string' ? Buffer.from(head) : head;
  const tailBytes = Buffer.from(tail);
  let length = headBytes.length + tailBytes.length + Math.max(0, parts.length - 1);
  for (const part of parts) length += part.length;
  const out = Buffer.allocUnsafe(length);
  let at = headBytes.copy(out, 0);
  parts.forEach((part, i) => {
    if (i > 0) out[at++] = 0x2c;
    at += part.copy(out, at);
  });
  tailBytes.copy(out, at);
  return out;
}
