// npm run bench: the edge's speed, measured in one run against nginx serving
// the same files with the same headers, and written to BENCHMARKS.md.
//
//   node bench/run.mjs [--duration SECONDS] [--no-write]
//
// - requests/s and p99 latency for GET / and for the main script (gzip), from
//   our server and from nginx (Debian's, started here on loopback, one worker
//   like our one Node process), with wrk (Debian's) as the load generator;
// - the latency the accounts proxy adds over calling the backend directly;
// - server start time, from process start to listening.
// Timings on a shared machine are noisy: compare the ratios, which are
// measured minutes apart on the same machine.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { commandExists, freePort, median, runWrk, startEdge, startHelperServer } from './tools.mjs'

const root = fileURLToPath(new URL('../', import.meta.url))
const durationSeconds = Number(process.argv[process.argv.indexOf('--duration') + 1]) || 10
const write = !process.argv.includes('--no-write')
const ratio = (ours, theirs) => theirs > 0 ? (ours / theirs).toFixed(2) : 'n/a'

execFileSync(process.execPath, [join(root, 'build.mjs'), '--if-stale'], { stdio: 'inherit' })

/** nginx with one worker, serving the page the edge renders and the same assets, with the same headers. */
async function startNginx (edgeBase) {
  const folder = mkdtempSync(join(tmpdir(), 'threshold-nginx-'))
  chmodSync(folder, 0o755)
  cpSync(join(root, 'dist/public/assets'), join(folder, 'assets'), { recursive: true })
  const page = await fetch(`${edgeBase}/`)
  writeFileSync(join(folder, 'index.html'), await page.text())
  const pageHeaders = [...page.headers].filter(([name]) => !/^(date|content-length|content-type|connection|keep-alive|transfer-encoding)$/.test(name))
  const assetResponse = await fetch(`${edgeBase}${mainScriptUrl}`, { headers: { 'accept-encoding': 'gzip' } })
  await assetResponse.arrayBuffer()
  const assetHeaders = [...assetResponse.headers].filter(([name]) => !/^(date|content-length|content-type|connection|keep-alive|transfer-encoding|etag|content-encoding|vary|last-modified)$/.test(name))
  const addHeaders = (headers) => headers.map(([name, value]) => `      add_header ${name} "${value.replace(/"/g, '\\"')}" always;`).join('\n')
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
  server {
    listen 127.0.0.1:${port};
    root ${folder};
    location = / {
      try_files /index.html =404;
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

/** From spawn to listening for a Node process that only opens an empty node:http server: the floor for any Node server here. */
async function emptyServerStartMs () {
  const started = Date.now()
  const child = spawn(process.execPath, ['-e', "require('node:http').createServer().listen(0, '127.0.0.1', function () { console.log(Date.now()); this.close() })"], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk) => { output += chunk })
  await once(child, 'close')
  return Number(output.trim()) - started
}

/** node:http answering the page the edge rendered, with its headers, from memory: one Node process's ceiling. */
async function startPlainNode (edgeBase) {
  const page = await fetch(`${edgeBase}/`)
  const headers = [...page.headers].filter(([name]) => !/^(date|connection|keep-alive|transfer-encoding)$/.test(name)).flat()
  return startHelperServer('plain-node-server.mjs', JSON.stringify({ body: await page.text(), headers }))
}

const mainScriptUrl = /src="(\/assets\/main-[^"]+\.js)"/.exec(readFileSync(join(root, 'dist/public/index.html'), 'utf8'))[1]

async function main () {
  if (!commandExists('wrk')) {
    console.error('bench: wrk is not installed (Debian package wrk); it is the load generator')
    process.exit(1)
  }
  // The accounts backend, in a process of its own: answers every call at once.
  const backend = await startHelperServer('load-upstream.mjs')
  console.error('bench: server start time')

  // Server start: the median of five starts, with backends configured (as in production) and without.
  const startTimes = []
  for (let run = 0; run < 5; run++) {
    const edge = await startEdge({ ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url })
    startTimes.push(edge.startMs)
    await edge.stop()
  }
  const floorStarts = []
  for (let run = 0; run < 5; run++) floorStarts.push(await emptyServerStartMs())
  const embeddedStarts = []
  for (let run = 0; run < 3; run++) {
    const dataDir = mkdtempSync(join(tmpdir(), 'threshold-bench-data-'))
    const edge = await startEdge({ DATA_DIR: dataDir })
    embeddedStarts.push(edge.startMs)
    await edge.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }

  console.error('bench: throughput, edge and nginx')
  const edge = await startEdge({ ACCOUNTS_URL: backend.url, EDGE_AUTH_URL: backend.url })
  const nginx = commandExists('nginx') ? await startNginx(edge.base) : null
  const plainNode = await startPlainNode(edge.base)
  const load = (url, headers = {}) => runWrk({ url, headers, durationSeconds, connections: 64 })

  const results = {}
  for (const [name, path, headers] of [['page', '/', {}], ['main script (gzip)', mainScriptUrl, { 'accept-encoding': 'gzip' }]]) {
    results[name] = {
      edge: await load(`${edge.base}${path}`, headers),
      nginx: nginx === null ? null : await load(`${nginx.base}${path}`, headers)
    }
  }
  const plainNodePage = await load(`${plainNode.url}/`)
  await plainNode.stop()

  console.error('bench: proxy overhead')
  // The proxy's cost: one connection, sequential calls, p50 through the edge vs straight to the backend.
  const post = { method: 'POST', body: '{"email":"a@b.test","password":"x"}', headers: { 'content-type': 'application/json' } }
  const direct = await runWrk({ url: `${backend.url}/v2/login`, durationSeconds: 5, connections: 1, ...post })
  const proxied = await runWrk({ url: `${edge.base}/accounts/v2/login`, durationSeconds: 5, connections: 1, ...post })

  await nginx?.stop()
  await edge.stop()
  await backend.stop()

  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${nginx?.version ?? 'no nginx'}, wrk ${spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0]?.split(' ')[1] ?? ''}`
  const rows = Object.entries(results).map(([name, { edge: ours, nginx: theirs }]) =>
    `| ${name} | ${Math.round(ours.requestsPerSecond).toLocaleString('en')} | ${ours.p99Ms.toFixed(2)} ms | ${theirs === null ? 'n/a' : Math.round(theirs.requestsPerSecond).toLocaleString('en')} | ${theirs === null ? 'n/a' : `${theirs.p99Ms.toFixed(2)} ms`} | ${theirs === null ? 'n/a' : `${ratio(ours.requestsPerSecond, theirs.requestsPerSecond)}×`} |`)
  const proxyOverheadMs = proxied.p50Ms - direct.p50Ms
  const report = `# Benchmarks

Measured by \`npm run bench\` (bench/run.mjs) on ${new Date().toISOString().slice(0, 10)}.
Machine: ${machine}.
Method: wrk, 1 thread, 64 connections, ${durationSeconds} s per target, on loopback. nginx runs one
worker process, as the edge is one Node process, and serves the page the edge rendered (a fixed
nonce) and the same assets, with the same response headers; both serve the script's gzip variant.
Numbers on a shared 2-core machine move between runs; the ratios, measured in one run, are the figures
to compare.

## Throughput

| request | edge req/s | edge p99 | nginx req/s | nginx p99 | edge ÷ nginx |
|---|---|---|---|---|---|
${rows.join('\n')}

Target: at least 0.5× nginx for the page and the main script. The page is rendered per request (a
fresh CSP nonce); the page and the assets are answered from memory before Fastify's router.

For scale, one Node process's ceiling on this machine: plain \`node:http\` answering the same page
bytes with the same headers from memory, with no routing and no per-request work, served
**${Math.round(plainNodePage.requestsPerSecond).toLocaleString('en')} req/s** (p99 ${plainNodePage.p99Ms.toFixed(2)} ms) in the same run: that is
${nginx === null ? 'n/a' : `${ratio(plainNodePage.requestsPerSecond, results.page.nginx.requestsPerSecond)}×`} nginx, and the edge's page reached ${ratio(results.page.edge.requestsPerSecond, plainNodePage.requestsPerSecond)}× of it.

## Proxy overhead

One connection, sequential POSTs of a login body for 5 s:

| path | p50 | p99 |
|---|---|---|
| straight to the backend | ${direct.p50Ms.toFixed(3)} ms | ${direct.p99Ms.toFixed(3)} ms |
| through the edge (\`/accounts/v2/login\`) | ${proxied.p50Ms.toFixed(3)} ms | ${proxied.p99Ms.toFixed(3)} ms |

The edge adds **${proxyOverheadMs.toFixed(3)} ms** at p50 (target: ≤ 1 ms): the same-origin and
content-type checks, reading the body within its 16 KiB limit, the rate limit, header rewriting,
and the second hop over loopback.

## Server start

From process start to listening, median of five: **${median(startTimes)} ms** with backends
configured (${startTimes.join(', ')} ms); target under 300 ms. With the embedded reference services
(no backends configured), the edge listens after **${median(embeddedStarts)} ms**
(${embeddedStarts.join(', ')} ms) and the services come up beside it in their own process.
For scale, a Node process that only opens an empty \`node:http\` server listens after
**${median(floorStarts)} ms** here (${floorStarts.join(', ')} ms): that much of the edge's start is Node's own.
`
  console.log(report)
  if (write) {
    writeFileSync(join(root, 'BENCHMARKS.md'), report)
    console.log('bench: wrote BENCHMARKS.md')
  }
}

await main()
