// Serves the web console's build (console/dist, made by `npm install`'s prepare step) at `/`:
// index.html with no-cache (so a new build is picked up at once) and the content-hashed files
// under /assets/ cached for a year, and /favicon.ico (console/public) for a day. Only `/`,
// `/index.html`, `/favicon.ico` and `/assets/*` are claimed, so the
// APIs, /docs, /openapi.json and the health and metrics endpoints are never shadowed.
// Self-contained: the files are read once at start-up and kept in memory (the build is small).

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Where the build lands: console/dist beside src/ in the repository. */
export const defaultConsoleDir = resolve(import.meta.dirname, '../../console/dist');

/**
 * The console's own page rules: scripts and style sheets from this origin only, no framing. The
 * terminal (xterm.js) sizes its rows with <style> elements it writes, so those are allowed
 * (style-src-elem); style attributes stay refused. connect-src 'self' covers the console's
 * WebSocket on the same origin.
 */
const consoleSecurityHeaders: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-elem 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

function load(path: string): StaticFile {
  const body = readFileSync(path);
  return {
    body,
    type: types[extname(path)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

function send(reply: FastifyReply, file: StaticFile, cacheControl: string, ifNoneMatch: string | undefined) {
  reply.headers(consoleSecurityHeaders);
  reply.header('cache-control', cacheControl);
  reply.header('etag', file.etag);
  reply.type(file.type);
  if (ifNoneMatch === file.etag) return reply.code(304).send();
  return reply.send(file.body);
}

const notBuilt = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Nubis</title>
<h1>Nubis</h1><p>The web console is not built. Run <code>npm install</code> (its prepare step builds it) or
<code>npm run build -w @nubis/console</code>, then restart. The API is at <a href="/docs">/docs</a>.</p></html>`;

export function consoleStatic(dir: string = defaultConsoleDir) {
  return async function consoleRoutes(app: FastifyInstance): Promise<void> {
    const indexPath = join(dir, 'index.html');
    const index = existsSync(indexPath) ? load(indexPath) : null;
    const assets = new Map<string, StaticFile>();
    const assetsDir = join(dir, 'assets');
    if (index && existsSync(assetsDir)) {
      for (const name of readdirSync(assetsDir)) {
        const path = join(assetsDir, name);
        if (statSync(path).isFile()) assets.set(name, load(path));
      }
    }

    // Browsers ask for /favicon.ico whatever the page names; its name is not hashed, so a day.
    const iconPath = join(dir, 'favicon.ico');
    const icon = existsSync(iconPath) ? load(iconPath) : null;

    const page = { schema: { hide: true } };
    const serveIndex = async (
      request: { headers: Record<string, string | string[] | undefined> },
      reply: FastifyReply,
    ) => {
      if (!index) {
        reply.headers(consoleSecurityHeaders);
        return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(notBuilt);
      }
      return send(reply, index, 'no-cache', request.headers['if-none-match'] as string | undefined);
    };
    app.get('/', page, serveIndex);
    app.get('/index.html', page, serveIndex);
    if (icon)
      app.get('/favicon.ico', page, async (request, reply) =>
        send(reply, icon, 'public, max-age=86400', request.headers['if-none-match']),
      );
    app.get<{ Params: { file: string } }>('/assets/:file', page, async (request, reply) => {
      const file = assets.get(request.params.file);
      if (!file)
        return reply
          .code(404)
          .send({ errors: { response: '404 Not Found', reason: `no such path: ${request.url.split('?')[0]}` } });
      return send(reply, file, 'public, max-age=31536000, immutable', request.headers['if-none-match']);
    });
  };
}
