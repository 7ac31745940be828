/**
 * The HTTP face of the simulator on node:http: the loopback-only control endpoint, then the
 * workers' queue, token check, forced answers and faults, then routing to the store's bodies.
 * Answers are built as plain replies first and written in one place, so faults such as
 * 'truncate' can act on any answer.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isResourceName, parseEndpoint } from '../spec/resources.js';
import { controlReply, isControlPath, isLoopback, type ControlHooks } from './control.js';
import type { FaultDecision, FaultPlan } from './faults.js';
import type { RateLimiter } from './limiter.js';
import type { Pacer } from './pacing.js';
import { JSON_TYPE, jsonReply, type Reply } from './reply.js';
import type { Store } from './store.js';
import type { Traffic } from './traffic.js';

/** A forced answer for one path (see Upstream.override). */
export interface ForcedResponse {
  status: number;
  body: string;
  contentType?: string;
}

/** What the request handler reads; faults and overrides change while the server runs. */
interface HandlerState {
  store: Store;
  token: string;
  faults: () => FaultPlan;
  overrides: ReadonlyMap<string, ForcedResponse>;
  /** Absent: requests are served at once. */
  pacer: Pacer;
  /** In front of everything else, as a gateway is. */
  limiter: RateLimiter;
  /** Absent: /_control paths are ordinary unknown paths. */
  control: ControlHooks | undefined;
  traffic: Traffic;
}

const LOGIN_PAGE = Buffer.from(
  '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Sign in · Inventory</title></head>' +
    '<body><form method="post" action="/users/sign_in"><h1>Sign in</h1><input name="user[login]"><input type="password" name="user[password]">' +
    '<button type="submit">Log in</button></form></body></html>\n',
);

/** Whether an If-None-Match header names this ETag (weak comparison, as for GET). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}

/** 304 when If-None-Match names the ETag, else 200 with the body; the body is asked for only then. */
function bodyReply(req: IncomingMessage, etag: string, data: () => Buffer): Reply {
  if (matchesEtag(req.headers['if-none-match'], etag)) return { status: 304, headers: { ETag: etag }, body: Buffer.alloc(0) };
  return { status: 200, headers: { 'Content-Type': JSON_TYPE, ETag: etag, 'Cache-Control': 'max-age=0, private, must-revalidate' }, body: data() };
}

/** Routes an authorized, unfaulted request to its answer. */
export function route(store: Store, req: IncomingMessage): Reply {
  if (req.method !== 'GET' && req.method !== 'HEAD') return jsonReply(405, { error: 'method not allowed' }, { Allow: 'GET, HEAD' });
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const notFound = jsonReply(404, { error: 'not found' });

  const endpoint = parseEndpoint(path);
  if (!endpoint || !isResourceName(endpoint.resource)) return notFound;
  const resource = endpoint.resource;
  if (endpoint.kind === 'list') {
    const answer = store.list(resource, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)));
    return 'error' in answer ? jsonReply(400, { error: answer.error }) : bodyReply(req, answer.etag, () => answer.data);
  }
  let id: string;
  try {
    id = decodeURIComponent(endpoint.encodedId);
  } catch {
    return notFound;
  }
  // A conditional re-fetch is settled on the kept ETag, without rendering the body again.
  const etag = store.singleEtag(resource, id);
  return etag === undefined ? notFound : bodyReply(req, etag, () => store.single(resource, id)!.data);
}

/** The node:http server and a way to drop answers still waiting on a 'slow' fault. */
export function createUpstreamServer(state: HandlerState): { server: Server; cancelPending(): void; requestCount(): number } {
  const tokenDigest = createHash('sha256').update(state.token).digest();
  const pending = new Set<NodeJS.Timeout>();
  let requests = 0;

  // Digests have equal length whatever was sent, so the comparison leaks neither content nor length.
  const authorized = (sent: string | string[] | undefined): boolean =>
    typeof sent === 'string' && timingSafeEqual(createHash('sha256').update(sent).digest(), tokenDigest);

  const send = (req: IncomingMessage, res: ServerResponse, reply: Reply, truncate = false): void => {
    const headers = reply.status === 304 ? reply.headers : { ...reply.headers, 'Content-Length': String(reply.body.length) };
    const withBody = req.method !== 'HEAD' && reply.status !== 304;
    if (truncate) {
      res.writeHead(reply.status, headers);
      if (withBody && reply.body.length > 0) res.write(reply.body.subarray(0, Math.floor(reply.body.length / 2)), () => res.destroy());
      else {
        res.flushHeaders();
        setImmediate(() => res.destroy());
      }
      return;
    }
    res.writeHead(reply.status, headers);
    res.end(withBody ? reply.body : undefined);
  };

  const faulted = (req: IncomingMessage, res: ServerResponse, fault: FaultDecision): void => {
    switch (fault.kind) {
      case 'fail':
        return send(req, res, jsonReply(500, { error: 'internal server error' }));
      case '5xx':
        return send(req, res, jsonReply(503, { error: 'service unavailable' }));
      case '429':
        return send(req, res, jsonReply(429, { error: 'too many requests' }, { 'Retry-After': String(fault.retryAfterSeconds) }));
      case 'html':
        return send(req, res, { status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: LOGIN_PAGE });
      case 'reset':
        req.socket.destroy();
        return;
      case 'truncate':
        return send(req, res, route(state.store, req), true);
      case 'slow': {
        const timer = setTimeout(() => {
          pending.delete(timer);
          if (!res.destroyed) send(req, res, route(state.store, req));
        }, fault.slowMs);
        pending.add(timer);
        return;
      }
    }
  };

  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (res.destroyed) return;
    if (!authorized(req.headers['x-api-token'])) return send(req, res, jsonReply(401, { error: 'unauthorized' }));
    const url = req.url ?? '/';
    const forced = state.overrides.get(url);
    if (forced) return send(req, res, { status: forced.status, headers: { 'Content-Type': forced.contentType ?? JSON_TYPE }, body: Buffer.from(forced.body) });
    const fault = state.faults().draw(url);
    if (fault) return faulted(req, res, fault);
    send(req, res, route(state.store, req));
  };

  const server = createServer((req, res) => {
    req.on('error', () => res.destroy());
    const url = req.url ?? '/';
    // Control requests skip the queue, the token and the faults: they must work on a failing service. Only this machine may send them.
    if (state.control && isControlPath(url.split('?')[0]!)) {
      return send(req, res, isLoopback(req.socket.remoteAddress) ? controlReply(req.method, url, state.control) : jsonReply(404, { error: 'not found' }));
    }
    requests += 1;
    const answered = state.traffic.arrived(performance.now());
    res.on('close', answered);
    if (!state.limiter.admit(performance.now())) {
      state.traffic.throttled();
      return send(req, res, jsonReply(429, { error: 'too many requests' }, { 'Retry-After': '1' }));
    }
    if (state.pacer.admit(() => serve(req, res))) return;
    state.traffic.refused();
    send(req, res, jsonReply(503, { error: 'service unavailable: too many requests waiting' }, { 'Retry-After': '1' }));
  });
  server.keepAliveTimeout = 10_000;
  server.headersTimeout = 15_000;

  return {
    server,
    requestCount: () => requests,
    cancelPending() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      state.pacer.cancel();
    },
  };
}
