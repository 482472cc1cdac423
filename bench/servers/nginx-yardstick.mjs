// nginx as npm run bench's yardstick: one worker, on loopback, serving the page
// the edge rendered (as it is, brotli and gzip) and the built assets with the
// edge's own response headers, so that the two serve the same bytes and only
// the servers differ.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../tools.mjs'

const root = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The page's bytes as the edge sends them for an Accept-Encoding, still encoded (fetch would decode them).
 * @param {string} edgeBase
 * @param {string} acceptEncoding
 * @returns {Promise<{ body: Buffer, headers: import('node:http').IncomingHttpHeaders }>}
 */
function pageAsSent (edgeBase, acceptEncoding) {
  return new Promise((resolve, reject) => {
    get(`${edgeBase}/`, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      /** @type {Buffer[]} */
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () => resolve({ body: Buffer.concat(chunks), headers: response.headers }))
      response.on('error', reject)
    }).on('error', reject)
  })
}

/**
 * nginx with one worker, serving the page the edge renders and the same assets, with the same headers.
 * @param {string} edgeBase the edge whose page and headers it copies
 * @param {string} scriptUrl an asset whose headers it copies for every asset
 */
export async function startNginx (edgeBase, scriptUrl) {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-nginx-'))
  chmodSync(folder, 0o755)
  cpSync(join(root, 'dist/public/assets'), join(folder, 'assets'), { recursive: true })
  // The edge's three answers, byte for byte. Debian's nginx-light has gzip_static but no brotli module:
  // the page is chosen by a map on Accept-Encoding instead (by name only, no q-values: the bench's
  // requests ask for one coding each), with Content-Encoding added to match.
  const identity = await pageAsSent(edgeBase, 'identity')
  const brotli = await pageAsSent(edgeBase, 'br')
  const gzip = await pageAsSent(edgeBase, 'gzip')
  if (identity.headers['content-encoding'] !== undefined || brotli.headers['content-encoding'] !== 'br' || gzip.headers['content-encoding'] !== 'gzip') {
    throw new Error('bench: the edge did not answer the page as it is, brotli and gzip by Accept-Encoding')
  }
  writeFileSync(join(folder, 'index.html'), identity.body)
  writeFileSync(join(folder, 'index.html.br'), brotli.body)
  writeFileSync(join(folder, 'index.html.gz'), gzip.body)
  const pageHeaders = Object.entries(identity.headers)
    .filter(([name]) => !/^(date|content-length|content-type|content-encoding|connection|keep-alive|transfer-encoding)$/.test(name))
    .map(([name, value]) => /** @type {[string, string]} */ ([name, String(value)]))
  const assetResponse = await fetch(`${edgeBase}${scriptUrl}`, { headers: { 'accept-encoding': 'gzip' } })
  await assetResponse.arrayBuffer()
  const assetHeaders = [...assetResponse.headers].filter(([name]) => !/^(date|content-length|content-type|connection|keep-alive|transfer-encoding|etag|content-encoding|vary|last-modified)$/.test(name))
  const addHeaders = (/** @type {[string, string][]} */ headers) => headers.map(([name, value]) => `      add_header ${name} "${value.replace(/"/g, '\\"')}" always;`).join('\n')
  const port = await freePort()
  writeFileSync(join(folder, 'nginx.conf'), `
worker_processes 1;
daemon off;
pid ${folder}/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${folder}/tmp-body;
  proxy_temp_path ${folder}/tmp-proxy;
  fastcgi_temp_path ${folder}/tmp-fastcgi;
  uwsgi_temp_path ${folder}/tmp-uwsgi;
  scgi_temp_path ${folder}/tmp-scgi;
  types { text/html html; text/javascript js; text/css css; image/svg+xml svg; image/jpeg jpg; video/mp4 mp4; video/webm webm; application/json map; }
  map $http_accept_encoding $page_file { ~*br /index.html.br; ~*gzip /index.html.gz; default /index.html; }
  map $http_accept_encoding $page_encoding { ~*br br; ~*gzip gzip; default ""; }
  server {
    listen 127.0.0.1:${port};
    root ${folder};
    location = / {
      types { }
      default_type text/html;
      try_files $page_file =404;
      # An empty value (the page as it is) adds no header.
      add_header content-encoding $page_encoding always;
${addHeaders(pageHeaders)}
    }
    location /assets/ {
      gzip_static on;
      etag on;
${addHeaders(assetHeaders)}
    }
  }
}
`)
  const child = spawn('nginx', ['-c', join(folder, 'nginx.conf'), '-p', folder, '-g', 'user root;'], { stdio: ['ignore', 'inherit', 'inherit'] })
  const base = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(`${base}/`)).ok) break
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return {
    base,
    version: spawnSync('nginx', ['-v'], { encoding: 'utf8' }).stderr.trim().replace(/^nginx version: /, ''),
    async stop () {
      child.kill('SIGQUIT')
      await once(child, 'exit')
      rmSync(folder, { recursive: true, force: true })
    }
  }
}
