// The web console's files at /: index.html never cached stale, hashed assets cached for a year,
// the console's security headers, and every API and service path left to its own handler.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from './support/instance.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(() => nubis.close());

describe('the console at /', () => {
  test('/ and /index.html answer the built page with no-cache and the console security headers', async () => {
    for (const path of ['/', '/index.html']) {
      const page = await fetch(nubis.url + path);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(page.headers.get('cache-control'), 'no-cache');
      assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
      assert.match(await page.text(), /<div id="app">/);
    }
  });

  test('every asset the page names is served with a year of immutable caching; a revalidation answers 304', async () => {
    const html = await (await fetch(nubis.url)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), html);
    for (const asset of assets) {
      const answer = await fetch(nubis.url + asset);
      assert.equal(answer.status, 200, asset);
      assert.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(answer.headers.get('content-type') ?? '', asset.endsWith('.js') ? /javascript/ : /text\/css/);
      const again = await fetch(nubis.url + asset, { headers: { 'if-none-match': answer.headers.get('etag')! } });
      assert.equal(again.status, 304);
    }
    assert.equal((await fetch(`${nubis.url}/assets/missing-0000.js`)).status, 404);
  });

  // Browsers ask for /favicon.ico whatever the page says; it was a 404 (issue 39).
  test('/favicon.ico is an icon, served like the console files, and the page names it', async () => {
    const icon = await fetch(`${nubis.url}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/x-icon');
    assert.equal(icon.headers.get('cache-control'), 'public, max-age=86400');
    const body = Buffer.from(await icon.arrayBuffer());
    // An ICO header: reserved 0, type 1 (icon), at least one image.
    assert.deepEqual([body.readUInt16LE(0), body.readUInt16LE(2)], [0, 1]);
    assert.ok(body.readUInt16LE(4) >= 1);
    const again = await fetch(`${nubis.url}/favicon.ico`, { headers: { 'if-none-match': icon.headers.get('etag')! } });
    assert.equal(again.status, 304);
    assert.match(await (await fetch(nubis.url)).text(), /<link rel="icon" href="\/favicon.ico"/);
  });

  test('the APIs, the docs and the health endpoints keep their own answers', async () => {
    const regions = await fetch(`${nubis.url}/v1.3/region/list`);
    assert.equal(regions.status, 200);
    assert.ok((await regions.json()).regions);
    assert.equal((await fetch(`${nubis.url}/v1.3/account/info`)).status, 401);
    assert.equal((await fetch(`${nubis.url}/admin/clock`)).status, 401);
    assert.equal((await fetch(`${nubis.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${nubis.url}/readyz`)).status, 200);
    assert.ok((await (await fetch(`${nubis.url}/openapi.json`)).json()).openapi);
    assert.equal((await fetch(`${nubis.url}/docs`, { redirect: 'manual' })).status < 400, true);
    const unknown = await fetch(`${nubis.url}/no-such-page`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /json/);
  });
});
