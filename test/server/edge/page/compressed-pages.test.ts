import t, { type Test } from 'tap'
import { once } from 'node:events'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { createPageRenderer } from '../../../../client/server-render.js'
import type { PageFormState } from '../../../../common/page/page-render.js'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { loadMessageCatalogues } from '../../../../server/edge/languages/message-catalogues.js'
import { CompressedPages, KEPT_COMPRESSION_BYTES_PER_SECOND, MAX_KEPT_BODY_BYTES, MAX_KEPT_PAGE_BYTES, MAX_KEPT_PAGES } from '../../../../server/edge/page/compressed-pages.js'
import { createPageAnswer } from '../../../../server/edge/page/page-answer.js'
import { PageMarkup } from '../../../../server/edge/page/page-markup.js'
import { PageTemplate } from '../../../../server/edge/page/page.js'
import { buildEdge, listen, PUBLIC_DIR } from '../../../fixtures/servers/edge.js'

interface RawAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** The bytes as they came, still encoded. */
  readonly body: Buffer
}

/** A request whose answer is read as it was sent (fetch would decode it and drop what says how). */
async function send (base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawAnswer> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    httpRequest(`${base}${path}`, { method, headers }, resolve).on('error', reject).end()
  })
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  return { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }
}

function decoded (answer: RawAnswer): Buffer {
  const encoding = answer.headers['content-encoding']
  if (encoding === 'br') return brotliDecompressSync(answer.body)
  if (encoding === 'gzip') return gunzipSync(answer.body)
  return answer.body
}

const TEST_CONFIG = parseRuntimeConfig(JSON.stringify({ productName: 'Threshold', supportEmail: 'support@example.com', passwordResetCompletion: true }))
const ADA: PageFormState = { view: 'login', email: 'ada@example.test', notice: { kind: 'error', text: 'Invalid email or password.' }, invalid: true, verificationLinkOffered: false, secondFactorChallenge: null }

interface Harness {
  readonly base: string
  readonly compressed: CompressedPages
  /** The form state a POST is answered with. */
  postState: PageFormState
}

/**
 * The page's answers over the built template, a real renderer and `compressed`, on a real
 * listener: a GET or HEAD is the page, a POST the page in `postState` (as a form post answers).
 */
async function pageServer (t: Test, compressed: CompressedPages, markupOptions: ConstructorParameters<typeof PageMarkup>[1] = { rendersPerSecond: 100_000 }): Promise<Harness> {
  const catalogues = await loadMessageCatalogues({}, { google: false })
  const renderer = createPageRenderer(TEST_CONFIG)
  const pages = await PageTemplate.load(join(PUBLIC_DIR, 'index.html'), TEST_CONFIG, () => null, catalogues)
  const answer = createPageAnswer({
    pages,
    markup: new PageMarkup(renderer, markupOptions),
    renderer,
    compressed,
    localAccountsAllowedHosts: [],
    hostnameOf: (request) => (request.headers.host ?? 'localhost').replace(/:\d+$/, ''),
    formActionFor: () => "'self'",
    catalogues,
    defaultLocale: 'en'
  })
  const harness: Harness = { base: '', compressed, postState: ADA }
  const server = createServer((request, response) => {
    const url = request.url ?? '/'
    const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : ''
    if (request.method === 'POST') answer.pageWithState(request, response, query, harness.postState)
    else answer.page(request, response, query)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  return Object.assign(harness, { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
}

/** A budget nothing spends: every distinct page is compressed (the clock stands still). */
const UNLIMITED = { bytesPerSecond: Number.MAX_SAFE_INTEGER, now: () => 0 }

t.test('the page is sent brotli, gzip or as it is by Accept-Encoding, its bytes decoded the same, with Vary and Content-Length; HEAD alike', async (t) => {
  const app = await buildEdge(t)
  const base = await listen(app)
  const identity = await send(base, '/?view=register')
  t.equal(identity.headers['content-encoding'], undefined, 'no Accept-Encoding: as it is')
  t.match(identity.body.toString(), /<\/html>\s*$/)
  for (const [acceptEncoding, expected] of [
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br, zstd', 'br'], // Chromium's
    ['gzip, deflate, br', 'br'],
    ['BR;q=0.000, GZIP', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['br;q=0, *', 'gzip'],
    ['*;q=0', undefined],
    ['gzip;q=0.5, identity', undefined],
    ['deflate, zstd', undefined],
    ['identity', undefined],
    ['br;q=2, gzip;q=0.x', undefined],
    ['', undefined]
  ] as const) {
    const answer = await send(base, '/?view=register', { 'accept-encoding': acceptEncoding })
    t.equal(answer.status, 200)
    t.equal(answer.headers['content-encoding'], expected, `${acceptEncoding || '(empty)'}: ${expected ?? 'as it is'}`)
    t.equal(answer.headers.vary, 'Accept-Encoding, Accept-Language', `${acceptEncoding}: Vary`)
    t.equal(answer.headers['content-length'], String(answer.body.length), `${acceptEncoding}: Content-Length counts the bytes sent`)
    t.ok(decoded(answer).equals(identity.body), `${acceptEncoding}: decoded, the page's own bytes`)
    const head = await send(base, '/?view=register', { 'accept-encoding': acceptEncoding }, 'HEAD')
    t.equal(head.body.length, 0, `${acceptEncoding}: HEAD, no body`)
    for (const name of ['content-encoding', 'content-length', 'vary', 'content-type', 'content-security-policy', 'cache-control']) {
      t.equal(head.headers[name], answer.headers[name], `${acceptEncoding}: HEAD, the GET's ${name}`)
    }
  }
  const brotli = await send(base, '/?view=register', { 'accept-encoding': 'br' })
  t.ok(brotli.body.length < identity.body.length / 2, `brotli: ${brotli.body.length} bytes of ${identity.body.length}`)
})

t.test('inject reaches the same compressed page as the listener', async (t) => {
  const app = await buildEdge(t)
  const plain = await app.inject({ url: '/?view=register' })
  const brotli = await app.inject({ url: '/?view=register', headers: { 'accept-encoding': 'br' } })
  t.equal(brotli.headers['content-encoding'], 'br')
  t.equal(brotli.headers['content-length'], String(brotli.rawPayload.length))
  t.ok(brotliDecompressSync(brotli.rawPayload).equals(plain.rawPayload))
})

t.test('a page the same for everyone is compressed once and kept; the next answers are the kept bytes', async (t) => {
  let now = 0
  // The register page is about 18 KB as it is: a budget of 30,000 bytes holds one page, not two.
  const page = await pageServer(t, new CompressedPages({ bytesPerSecond: 30_000, now: () => now }))
  const first = await send(page.base, '/?view=register&redirect=%2Fapp', { 'accept-encoding': 'br' })
  t.equal(first.headers['content-encoding'], 'br')
  const size = decoded(first).length
  t.ok(size <= 30_000 && size * 2 > 30_000, `the budget holds one page (${size} bytes), not two`)
  t.equal(page.compressed.size, 1, 'kept')
  for (const acceptEncoding of ['br', 'gzip', 'gzip, br']) {
    const again = await send(page.base, '/?view=register&redirect=%2Fapp', { 'accept-encoding': acceptEncoding })
    t.not(again.headers['content-encoding'], undefined, `${acceptEncoding}: compressed with the budget spent, so from the kept page`)
  }
  const other = await send(page.base, '/?view=login', { 'accept-encoding': 'br' })
  t.equal(other.headers['content-encoding'], undefined, 'another page, the budget spent: sent as it is')
  t.equal(page.compressed.size, 1, 'and not kept')
  now += 1000
  const later = await send(page.base, '/?view=login', { 'accept-encoding': 'br' })
  t.equal(later.headers['content-encoding'], 'br', 'a second later, compressed and kept')
  t.equal(page.compressed.size, 2)
  t.ok(decoded(later).equals(decoded(other)), 'the same page either way')
})

t.test('invented hosts and queries never keep more than MAX_KEPT_PAGES pages or MAX_KEPT_PAGE_BYTES', async (t) => {
  const page = await pageServer(t, new CompressedPages(UNLIMITED))
  for (let index = 0; index < MAX_KEPT_PAGES + 20; index++) {
    const answer = await send(page.base, `/?redirect=%2Fapp%2F${index}`, { 'accept-encoding': 'br', host: `host-${index % 7}.example.test` })
    t.equal(answer.headers['content-encoding'], 'br')
  }
  t.equal(page.compressed.size, MAX_KEPT_PAGES, 'the oldest pushed out')
  // Long queries (each ends every view link) whose pages are still under MAX_KEPT_BODY_BYTES.
  const long = 'x'.repeat(6_000)
  for (let index = 0; index < MAX_KEPT_PAGES; index++) await send(page.base, `/?redirect=%2F${index}${long}`, { 'accept-encoding': 'gzip' })
  t.ok(page.compressed.memoryBytes <= MAX_KEPT_PAGE_BYTES, `long queries: ${page.compressed.memoryBytes} bytes kept`)
  t.ok(page.compressed.size < MAX_KEPT_PAGES, `${page.compressed.size} pages of long queries`)
  const answer = await send(page.base, '/?redirect=%2Fapp%2F0', { 'accept-encoding': 'br', host: 'host-0.example.test' })
  t.equal(answer.headers['content-encoding'], 'br', 'a page pushed out is compressed again on its next visit')
})

t.test('attack: free text and form posts are never kept; two visitors\' answers never cross', async (t) => {
  const page = await pageServer(t, new CompressedPages(UNLIMITED))
  const ada = await send(page.base, '/?login_hint=ada%40example.test', { 'accept-encoding': 'gzip, br' })
  t.match(decoded(ada).toString(), 'value="ada@example.test"', 'the hint rendered')
  t.equal(ada.headers['content-encoding'], 'gzip', 'gzipped for its one answer')
  const grace = await send(page.base, '/?login_hint=grace%40example.test', { 'accept-encoding': 'gzip, br' })
  t.notMatch(decoded(grace).toString(), 'ada@example.test')
  for (const banner of ['/?home_page_banner=Hello%20Ada', '/?error=Ada%27s%20error']) {
    const answer = await send(page.base, banner, { 'accept-encoding': 'gzip' })
    t.equal(answer.headers['content-encoding'], 'gzip', `${banner}: gzipped for its one answer`)
  }
  t.equal(page.compressed.size, 0, 'no free-text page kept')

  const post = await send(page.base, '/?view=login', { 'accept-encoding': 'gzip, br' }, 'POST')
  t.equal(post.headers['content-encoding'], 'gzip', 'a form post\'s page, gzipped for its one answer')
  t.equal(post.headers['content-length'], String(post.body.length))
  t.match(decoded(post).toString(), 'value="ada@example.test"')
  t.equal(page.compressed.size, 0, 'and not kept')
  const next = await send(page.base, '/?view=login', { 'accept-encoding': 'gzip, br' })
  t.notMatch(decoded(next).toString(), 'ada@example.test', 'the next visitor of the same address sees none of it')
  t.equal(page.compressed.size, 1, 'that page is kept')
  const afterKept = await send(page.base, '/?view=login', { 'accept-encoding': 'gzip, br' }, 'POST')
  t.match(decoded(afterKept).toString(), 'value="ada@example.test"', 'a form post never gets the kept page')
})

t.test('attack (BREACH): a page holding the second factor\'s challenge is never compressed', async (t) => {
  const page = await pageServer(t, new CompressedPages(UNLIMITED))
  page.postState = { ...ADA, notice: null, invalid: false, secondFactorChallenge: 'challenge-secret-0123456789' }
  const answer = await send(page.base, `/?view=login&redirect=${encodeURIComponent('/?challenge-secret-0')}`, { 'accept-encoding': 'gzip, deflate, br, zstd' }, 'POST')
  t.equal(answer.headers['content-encoding'], undefined, 'sent as it is: its length says nothing of the secret')
  t.match(answer.body.toString(), 'challenge-secret-0123456789', 'the challenge is in the page')
  t.equal(answer.headers['content-length'], String(answer.body.length))
})

t.test('a page left to the scripts (the render budget spent) is sent as it is, and not kept', async (t) => {
  const page = await pageServer(t, new CompressedPages(UNLIMITED), { rendersPerSecond: 0 })
  for (const path of ['/?view=register', '/?home_page_banner=Hi']) {
    const answer = await send(page.base, path, { 'accept-encoding': 'br, gzip' })
    t.match(answer.body.toString(), '<div id="root"></div>', `${path}: unrendered`)
    t.equal(answer.headers['content-encoding'], undefined, `${path}: no compression in a flood`)
  }
  t.equal(page.compressed.size, 0)
})

t.test('the compression budget is the page bytes of a second', async (t) => {
  t.equal(KEPT_COMPRESSION_BYTES_PER_SECOND, 160 * 1024, 'about twenty pages (docs/performance.md)')
  let now = 0
  const pages = new CompressedPages({ bytesPerSecond: 1000, now: () => now })
  const body = Buffer.from('<p>hello</p>'.repeat(50))
  t.not(pages.keep('a', body, []), null, '600 bytes within 1000')
  t.equal(pages.keep('b', body, []), null, 'not another 600')
  now += 600
  t.not(pages.keep('b', body, []), null, 'refilled in 0.6 s')
  t.equal(pages.size, 2)
  const variants = pages.get('a')
  t.ok(variants?.br !== undefined && variants.gzip !== undefined)
  t.ok(brotliDecompressSync(variants!.br!.body).equals(body))
  t.ok(gunzipSync(variants!.gzip!.body).equals(body))
  t.same(variants!.br!.headers, ['content-length', String(variants!.br!.body.length), 'content-encoding', 'br'])
})

t.test('attack: a query long enough to make the page longer than MAX_KEPT_BODY_BYTES costs no brotli and is not kept', async (t) => {
  const page = await pageServer(t, new CompressedPages(UNLIMITED))
  const answer = await send(page.base, `/?redirect=%2F${'y'.repeat(12_000)}`, { 'accept-encoding': 'br' })
  t.equal(answer.status, 200)
  t.ok(answer.body.length > MAX_KEPT_BODY_BYTES, `the page is ${answer.body.length} bytes`)
  t.equal(answer.headers['content-encoding'], undefined, 'sent as it is')
  t.equal(page.compressed.size, 0, 'not kept')
})

t.test('attack: a page whose address carries a reset token is never kept in memory', async (t) => {
  const page = await pageServer(t, new CompressedPages(UNLIMITED))
  await send(page.base, '/?view=setPassword&token=secret-reset-token', { 'accept-encoding': 'br' })
  await send(page.base, '/?view=login&unknown=1', { 'accept-encoding': 'br' })
  t.equal(page.compressed.size, 0, 'neither kept')
  await send(page.base, '/?view=register&redirect=%2Fapp', { 'accept-encoding': 'br' })
  t.equal(page.compressed.size, 1, 'a page the browser may keep is kept')
})
