/** The Content-Type of a snapshot file in object storage, by its extension. Pure. */

const TYPES: Record<string, string> = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  ico: 'image/x-icon',
};

/** The type a browser and a CDN need to treat the object as the service's answer would be treated. */
export function contentType(path: string): string {
  const dot = path.lastIndexOf('.');
  const extension = dot > path.lastIndexOf('/') ? path.slice(dot + 1).toLowerCase() : '';
  return TYPES[extension] ?? 'application/octet-stream';
}
