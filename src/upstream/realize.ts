/**
 * The realistic profile's data quirks: what a real CMDB's tables hold that the API document does
 * not promise (nulls in documented string fields, a few wrongly typed values, references to
 * servers retired long ago). Each record's quirks come from its own random stream (seed,
 * resource, id): the same in every process, unmoved when other records change, and applying
 * them twice changes nothing, so a mutated record keeps the quirks it had.
 */
import type { ResourceName } from '../spec/resources.js';
import type { View } from './data.js';
import { recordRng, type Rng } from './random.js';
import * as W from './vocab.js';

/** How often each quirk is drawn, per record. */
const QUIRK_RATES = {
  // The generator already leaves 20% of appservers without a database connection; 12.5% of the rest makes about 30%.
  appserverWithoutDatabase: 0.125,
  appserverOnRetiredServer: 0.003,
  applicationWithoutDescription: 0.2,
  serverWithoutProcessor: 0.12,
  serverMemoryAsText: 0.001,
  databaseOnRetiredServer: 0.01,
  databasePortAsText: 0.005,
} as const;

const DBCONN_FIELDS = ['dbconn_url', 'dbconn_server', 'dbconn_db', 'dbconn_user', 'dbconn_driver'] as const;

/** A server that no longer exists: ids far above any generated one, named as servers are. */
function retiredServer(rng: Rng): { id: string; name: string } {
  const id = String(rng.int(9_000_000, 9_999_999));
  return { id, name: `${rng.pick(W.CITIES)}-${rng.pick(W.ROLES)}-${id}` };
}

/** Applies a record's quirks to its view in place and returns it. */
export function realizeRecord(seed: number, resource: ResourceName, view: View): View {
  const rng = recordRng(seed, resource, view.id, 'data');
  switch (resource) {
    case 'applications':
      if (rng.chance(QUIRK_RATES.applicationWithoutDescription)) view.description = null;
      break;
    case 'operating_systems':
      // A system without a codename has none in the database, not an empty one.
      if (view.codename === '') view.codename = null;
      break;
    case 'servers': {
      if (rng.chance(QUIRK_RATES.serverWithoutProcessor)) view.processor_reference = null;
      if (rng.chance(QUIRK_RATES.serverMemoryAsText) && typeof view.memory_GB === 'number') view.memory_GB = String(view.memory_GB);
      break;
    }
    case 'appservers': {
      const withoutDatabase = rng.chance(QUIRK_RATES.appserverWithoutDatabase) || view.dbconn_url === '' || view.dbconn_url === null;
      if (withoutDatabase) for (const field of DBCONN_FIELDS) view[field] = null;
      if (rng.chance(QUIRK_RATES.appserverOnRetiredServer)) {
        const retired = retiredServer(rng);
        view.server_id = retired.id;
        view.server_name = retired.name;
      }
      break;
    }
    case 'databases': {
      // Appended last: `servers` keeps one entry per live name, in server_names order, as mutations expect.
      if (rng.chance(QUIRK_RATES.databaseOnRetiredServer) && Array.isArray(view.server_names)) {
        const { name } = retiredServer(rng);
        if (!view.server_names.includes(name)) view.server_names = [...view.server_names, name];
      }
      const [first, ...rest] = Array.isArray(view.instances) ? (view.instances as unknown[]) : [];
      if (rng.chance(QUIRK_RATES.databasePortAsText) && typeof first === 'object' && first !== null) {
        const instance = first as Record<string, unknown>;
        // A copy: a mutation's database may share its instances with the record it replaces.
        if (typeof instance.listen_port === 'number') view.instances = [{ ...instance, listen_port: String(instance.listen_port) }, ...rest];
      }
      break;
    }
  }
  return view;
}
