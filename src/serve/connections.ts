/**
 * Bounds on `serve`'s connections, so clients that connect and then send nothing (or half a
 * request) cannot take every file descriptor and starve real requests:
 *
 * - time: a request's headers must arrive within `headersTimeoutMs` of its start (or of the
 *   connection's, for the first one), the whole request within `requestTimeoutMs`; a connection
 *   idle after a response is closed after `keepAliveTimeoutMs`, and one with no traffic either way
 *   (a client that does not read) after `idleTimeoutMs`;
 * - number: at most `maxConnections` at once (by default half the process's file descriptor
 *   limit, leaving the rest for node itself and the files serve reads). Node refuses connections
 *   beyond it, which would refuse real clients too; so before that, once the connections reach
 *   nine tenths of it, each new one closes the longest-idle connection that has no request under
 *   way. Half-sent requests count as idle: their 'request' event has not come.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ServeLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
}

/** The soft limit on open files, from /proc (Linux); undefined where it cannot be read. */
function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return line === undefined || line === 'unlimited' ? undefined : Number(line);
  } catch {
    return undefined;
  }
}

/** The limits in force: `given` over the defaults. */
export function serveLimits(given: Partial<ServeLimits> = {}): ServeLimits {
  const files = openFilesLimit();
  const headersTimeoutMs = given.headersTimeoutMs ?? 10_000;
  return {
    headersTimeoutMs,
    // Node refuses a request timeout shorter than the headers timeout.
    requestTimeoutMs: Math.max(given.requestTimeoutMs ?? 30_000, headersTimeoutMs),
    keepAliveTimeoutMs: given.keepAliveTimeoutMs ?? 10_000,
    idleTimeoutMs: given.idleTimeoutMs ?? 60_000,
    maxConnections: given.maxConnections ?? (files ? Math.min(4096, Math.max(16, Math.floor(files / 2))) : 512),
  };
}

/** The options node:http takes at creation: how often it looks for expired headers and requests. */
export function serverOptions(limits: ServeLimits): { connectionsCheckingInterval: number } {
  // Node checks the two timeouts on this interval (default 30 s), so it bounds how late they act.
  return { connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))) };
}

/** Applies the limits to `server` and starts closing idle connections when they run short. */
export function guardConnections(server: Server, limits: ServeLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.timeout = limits.idleTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const crowded = limits.maxConnections - Math.max(1, Math.floor(limits.maxConnections / 10));

  // Every open connection, longest idle first; `busy` counts its requests under way.
  const open = new Map<Socket, { busy: number }>();
  server.on('connection', (socket: Socket) => {
    open.set(socket, { busy: 0 });
    socket.once('close', () => open.delete(socket));
    for (const [other, state] of open) {
      if (open.size <= crowded) break;
      if (other !== socket && state.busy === 0) {
        open.delete(other);
        other.destroy();
      }
    }
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    const state = open.get(socket);
    if (!state) return;
    state.busy++;
    response.once('close', () => {
      state.busy--;
      // Idle again from now: to the end of the order.
      if (open.delete(socket)) open.set(socket, state);
    });
  });
}
