/** Answers as plain data, written to the socket in one place (server.ts), so faults can act on any of them. */

/** A status, headers and a body. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A compact JSON answer. */
export const jsonReply = (status: number, payload: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'Content-Type': JSON_TYPE, ...headers },
  body: Buffer.from(JSON.stringify(payload)),
});
