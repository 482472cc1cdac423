import t from 'tap'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createPageRenderer } from '../../../client/server-render.js'
import { PAGE_STATE_ELEMENT_ID, parsePageFormState, type PageFormState } from '../../../common/page-render.js'
import { MAX_CACHED_MARKUPS, PageMarkup } from '../../../server/edge/page-markup.js'
import { buildEdge } from '../../fixtures/edge.js'
import { parseRuntimeConfig } from '../../../common/runtime-config.js'

// Not test/fixtures/page.tsx's: it installs happy-dom, whose fetch is a browser's.
const TEST_CONFIG = parseRuntimeConfig(JSON.stringify({ productName: 'Threshold', supportEmail: 'support@example.com', passwordResetCompletion: true }))

t.test('the edge serves the rendered view for GET and HEAD of /', async (t) => {
  const app = await buildEdge(t, { passwordResetCompletion: true })
  const page = await app.inject({ url: '/?view=register&redirect=%2Fapp' })
  t.match(page.body, /<div id="root"><div class="page">.*<h1 class="card__title">Create your account<\/h1>/s)
  t.match(page.body, '<title>Create your account · Threshold</title>')
  t.match(page.body, 'href="/?redirect=%2Fapp"', 'the login link keeps the visitor\'s redirect')
  t.notMatch(page.body, PAGE_STATE_ELEMENT_ID, 'no state without a form post')
  const head = await app.inject({ method: 'HEAD', url: '/?view=register&redirect=%2Fapp' })
  t.equal(head.headers['content-length'], String(Buffer.byteLength(page.body)))
  t.equal(head.body, '')
})

t.test('one rendering per markup, the rest of the query filled in per request; distinct banners never grow the cache', async (t) => {
  const renderer = createPageRenderer(TEST_CONFIG)
  const markup = new PageMarkup(renderer)
  for (const [search, expected] of [
    ['', '/?view=register'],
    ['redirect=%2Fa', '/?view=register&amp;redirect=%2Fa'],
    ['cluster_name=x&redirect=%2Fb&allowed_org=o', '/?view=register&amp;cluster_name=x&amp;redirect=%2Fb&amp;allowed_org=o']
  ] as const) {
    const cached = markup.forQuery(search, 'signin.example.com')
    t.equal(cached.html, renderer.render({ search, hostname: 'signin.example.com', state: null }).html, `${search || '(none)'}: as rendered for the query itself`)
    t.match(cached.html, `href="${expected}"`)
  }
  t.equal(markup.size, 1, 'redirect and the login context share one rendering')
  const hostile = markup.forQuery('redirect=%22%3E%3Cscript%3E&x="><script>alert(1)</script>', 'signin.example.com')
  t.notMatch(hostile.html, /"><script|<script>/, 'the rest is escaped as it is filled in')
  for (let index = 0; index < MAX_CACHED_MARKUPS * 2; index++) {
    t.match(markup.forQuery(`home_page_banner=Banner%20${index}`, 'signin.example.com').html, `Banner ${index}`)
  }
  t.equal(markup.size, MAX_CACHED_MARKUPS, 'bounded: beyond the cap each is rendered, not kept')
  const slot = markup.forQuery('home_page_banner=threshold-rest-slot&redirect=%2Fz', 'signin.example.com')
  t.match(slot.html, '<p class="banner">threshold-rest-slot</p>', 'a banner that spells the slot stays as written')
})

t.test('pageAnswer.pageWithState answers a post with the full page: the state rendered and embedded, a nonce, the CSP', async (t) => {
  const app = await buildEdge(t)
  await app.ready()
  const state: PageFormState = { view: 'login', email: 'ada@example.com', notice: { kind: 'error', text: 'Invalid email or password.' }, invalid: true, verificationLinkOffered: false, secondFactorChallenge: null }
  const server = createServer((request, response) => app.pageAnswer.pageWithState(request, response, 'view=register&redirect=%2Fapp', state, 400))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/?view=register&redirect=%2Fapp`, { method: 'POST' })
  const html = await response.text()
  t.equal(response.status, 400)
  t.equal(response.headers.get('cache-control'), 'no-store')
  const nonce = /'nonce-([^']+)'/.exec(response.headers.get('content-security-policy') ?? '')?.[1]
  t.ok(nonce !== undefined && html.includes(`nonce="${nonce}"`), 'the script\'s nonce is the CSP\'s')
  t.match(html, '<title>Log in · Threshold</title>', 'the state\'s view')
  t.match(html, 'value="ada@example.com"')
  t.match(html, 'Invalid email or password.')
  const embedded = new RegExp(`<script type="application/json" id="${PAGE_STATE_ELEMENT_ID}">([^<]*)</script>`).exec(html)?.[1]
  t.same(parsePageFormState(embedded), state, 'the state embedded for the scripts')
})
