import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { negotiateEncoding } from '../../../../server/edge/page/static-files.js'
import { buildEdge, listen, PUBLIC_DIR } from '../../../fixtures/servers/edge.js'

const assetsDir = join(PUBLIC_DIR, 'assets')
// The largest script: the first load's chunk. The entry itself is one line that imports it (build/first-load-chunk.mjs), too small to compress.
const mainScript = readdirSync(assetsDir).filter((name) => name.endsWith('.js'))
  .sort((a, b) => statSync(join(assetsDir, b)).size - statSync(join(assetsDir, a)).size)[0]!
const original = readFileSync(join(assetsDir, mainScript))

t.test('assets are served with their compressed variant, chosen by Accept-Encoding', async (t) => {
  const app = await buildEdge(t)
  const base = await listen(app)
  const url = `${base}/assets/${mainScript}`
  const get = (acceptEncoding: string | null) => fetch(url, {
    headers: acceptEncoding === null ? {} : { 'accept-encoding': acceptEncoding }
  })

  // fetch decodes bodies itself, so it proves each variant decodes to the original.
  for (const [accept, encoding] of [['br, gzip', 'br'], ['gzip', 'gzip'], ['gzip, br;q=0', 'gzip'], ['identity', null], ['br;q=0, gzip;q=0', null]] as const) {
    const response = await get(accept)
    t.equal(response.headers.get('content-encoding'), encoding, `Accept-Encoding: ${accept}`)
    t.equal(response.headers.get('vary'), 'Accept-Encoding')
    t.equal(response.headers.get('content-type'), 'text/javascript; charset=utf-8')
    t.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable')
    t.ok(Buffer.from(await response.arrayBuffer()).equals(original), `${accept}: the bytes are the build's`)
  }
})

t.test('the compressed variants on disk decode to the original', async (t) => {
  t.ok(brotliDecompressSync(readFileSync(join(assetsDir, `${mainScript}.br`))).equals(original))
  t.ok(gunzipSync(readFileSync(join(assetsDir, `${mainScript}.gz`))).equals(original))
})

t.test('a matching If-None-Match gets 304 without a body; HEAD gets the headers only', async (t) => {
  const app = await buildEdge(t)
  const first = await app.inject({ url: `/assets/${mainScript}`, headers: { 'accept-encoding': 'br' } })
  const etag = first.headers.etag as string
  t.match(etag, /^"[\w-]+-br"$/)
  const again = await app.inject({ url: `/assets/${mainScript}`, headers: { 'accept-encoding': 'br', 'if-none-match': etag } })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  const otherEncoding = await app.inject({ url: `/assets/${mainScript}`, headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } })
  t.equal(otherEncoding.statusCode, 200, 'the br tag does not match the gzip representation')
  const head = await app.inject({ method: 'HEAD', url: `/assets/${mainScript}` })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], String(original.length))
})

t.test('unknown and traversing asset paths get the 404 page', async (t) => {
  const app = await buildEdge(t)
  const base = await listen(app)
  for (const path of ['/assets/nope.js', '/assets/..%2f..%2fpackage.json', '/assets/%2e%2e/index.html', '/assets/', '/assets/.hidden']) {
    const response = await fetch(`${base}${path}`)
    t.equal(response.status, 404, path)
    t.match(await response.text(), /Page not found/)
  }
})

t.test('Accept-Encoding negotiation follows quality values', async (t) => {
  const all = { identity: true, br: true, gzip: true }
  t.equal(negotiateEncoding(undefined, all), 'identity')
  t.equal(negotiateEncoding('*', all), 'br')
  t.equal(negotiateEncoding('gzip, deflate, br', all), 'br')
  t.equal(negotiateEncoding('BR;q=0.000, GZIP', all), 'gzip')
  t.equal(negotiateEncoding('br;q=0.5', all), 'br')
  t.equal(negotiateEncoding('br', { identity: true, gzip: true }), 'identity')
  t.equal(negotiateEncoding('gzip;q=1, br;q=0.9', all), 'gzip', 'the higher weight wins')
  t.equal(negotiateEncoding('gzip, br', all), 'br', 'brotli first at equal weights')
  t.equal(negotiateEncoding('br;q=0, *', all), 'gzip', 'a coding refused by name is not taken back by *')
  t.equal(negotiateEncoding('*;q=0', all), 'identity')
  t.equal(negotiateEncoding('gzip;q=0.2, *;q=0.5', all), 'br', '* weighs the codings not named')
  t.equal(negotiateEncoding('gzip;q=0.5, identity;q=0.8', all), 'identity', 'identity preferred by name')
  t.equal(negotiateEncoding('x-gzip', all), 'gzip')
  t.equal(negotiateEncoding('gzip; q=0.5 ;level=1', all), 'gzip', 'spaces and other parameters')
  for (const malformed of ['br;q=1.5', 'br;q=-1', 'br;q=0.0001', 'br;q=', 'br;q=abc']) {
    t.equal(negotiateEncoding(malformed, all), 'identity', `${malformed}: a weight that is not one turns nothing on`)
  }
  t.equal(negotiateEncoding('deflate, zstd', all), 'identity')
  t.equal(negotiateEncoding(',,; ;q=1,', all), 'identity', 'garbage')
})

t.test('the client\'s source maps are not public by default: no /assets/*.map, and no script names one', async (t) => {
  const app = await buildEdge(t)
  const maps = readdirSync(join(PUBLIC_DIR, '../client-sourcemaps'))
  t.ok(maps.includes(`${mainScript}.map`), 'the build keeps them aside, for an error tracker')
  t.same(readdirSync(assetsDir).filter((name) => name.endsWith('.map')), [], 'none in the served folder')
  for (const map of maps) {
    t.equal((await app.inject({ url: `/assets/${map}` })).statusCode, 404, map)
  }
  for (const name of readdirSync(assetsDir).filter((candidate) => /\.(js|css)$/.test(candidate))) {
    t.notMatch(readFileSync(join(assetsDir, name), 'utf8'), /sourceMappingURL/, `${name} names no map`)
  }
  t.equal((await app.inject({ url: `/assets/${mainScript}` })).headers.sourcemap, undefined)
})

t.test('SOURCE_MAPS=public serves the maps and names each in its script\'s SourceMap header', async (t) => {
  const app = await buildEdge(t, { env: { SOURCE_MAPS: 'public' } })
  const script = await app.inject({ url: `/assets/${mainScript}`, headers: { 'accept-encoding': 'br' } })
  t.equal(script.headers.sourcemap, `/assets/${mainScript}.map`)
  const map = await app.inject({ url: `/assets/${mainScript}.map` })
  t.equal(map.statusCode, 200)
  t.equal(map.headers['content-type'], 'application/json; charset=utf-8')
  t.match(map.headers['content-security-policy'], /default-src/, 'with the security headers')
  t.ok((JSON.parse(map.body) as { sources: string[] }).sources.some((source) => source.endsWith('client/start-page.tsx')), 'the client\'s sources')
})
