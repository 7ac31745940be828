/** The globals the data scripts set or call: scripts, not fetch(), since file:// pages cannot fetch. */
import type { Column, History, LinkRows, PageData, RecordBody, SearchColumn } from './types.js';

declare global {
  interface Window {
    IM_DATA?: PageData;
    IM_TABLE?: (resource: string, chunk: number, ids: string[], columns: Column[]) => void;
    IM_RECORDS?: (resource: string, bucket: number, records: Record<string, RecordBody>) => void;
    IM_HISTORY?: (history: History) => void;
    IM_SEARCH?: (resource: string, chunk: number, ids: string[], fields: string[], columns: SearchColumn[]) => void;
    IM_LINKS?: (resource: string, bucket: number, rows: LinkRows) => void;
  }
}
