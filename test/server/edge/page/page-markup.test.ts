import t from 'tap'
import { englishMessages } from '../../../fixtures/languages/messages.js'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createPageRenderer } from '../../../../client/server-render.js'
import { PAGE_STATE_ELEMENT_ID, parsePageFormState, type PageFormState } from '../../../../common/page/page-render.js'
import { MAX_CACHED_MARKUPS, PageMarkup, UNCACHED_RENDERS_PER_SECOND } from '../../../../server/edge/page/page-markup.js'
import { buildEdge } from '../../../fixtures/servers/edge.js'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'

const ENGLISH = englishMessages()

// Not test/fixtures/page/page.tsx's: it installs happy-dom, whose fetch is a browser's.
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
    const cached = markup.forQuery(search, 'signin.example.com', ENGLISH)
    t.equal(cached.html, renderer.render({ search, hostname: 'signin.example.com', state: null, messages: ENGLISH, account: null }).html, `${search || '(none)'}: as rendered for the query itself`)
    t.match(cached.html, `href="${expected}"`)
  }
  t.equal(markup.size, 1, 'redirect and the login context share one rendering')
  const hostile = markup.forQuery('redirect=%22%3E%3Cscript%3E&x="><script>alert(1)</script>', 'signin.example.com', ENGLISH)
  t.notMatch(hostile.html, /"><script|<script>/, 'the rest is escaped as it is filled in')
  const slot = markup.forQuery('home_page_banner=threshold-rest-slot&redirect=%2Fz', 'signin.example.com', ENGLISH)
  t.match(slot.html, '<p class="banner">threshold-rest-slot</p>', 'a banner that spells the slot stays as written')
})

t.test('the attack: a malformed segment does not let a banner that spells the slot take the rest of the query', async (t) => {
  const markup = new PageMarkup(createPageRenderer(TEST_CONFIG))
  for (const search of [
    'home_page_banner=%3Fthreshold%2Drest%2Dslot&view=%&note=ANY+TEXT',
    'view=%&notice=%3Fthreshold%2Drest%2Dslot&note=ANY+TEXT'
  ]) {
    const { html } = markup.forQuery(search, 'signin.example.com', ENGLISH)
    t.notMatch(/<p class="banner">([^<]*)<\/p>/.exec(html)?.[1] ?? '', 'note=', `${search}: the rest is not in the banner`)
    t.notMatch(html.replace(/href="[^"]*"/g, ''), 'ANY', 'nor anywhere outside the links')
  }
})

/** The real renderer, counted. */
function countingRenderer () {
  const renderer = createPageRenderer(TEST_CONFIG)
  const counted = { renders: 0, render: (request: Parameters<typeof renderer.render>[0]) => { counted.renders++; return renderer.render(request) } }
  return counted
}

t.test('the attack: 1,000 GETs with distinct banners are rendered each, never kept, and push no kept view out', async (t) => {
  let clock = 0
  const renderer = countingRenderer()
  const markup = new PageMarkup(renderer, { now: () => clock })
  markup.forQuery('view=register', 'signin.example.com', ENGLISH)
  t.equal(renderer.renders, 1)
  let shown = 0
  for (let index = 0; index < 1000; index++) {
    clock += 5 // 200 a second: within the budget, every banner is rendered
    if (markup.forQuery(`home_page_banner=Banner%20${index}&redirect=%2Fa`, 'signin.example.com', ENGLISH).html.includes(`Banner ${index}`)) shown++
  }
  t.equal(shown, 1000, 'each banner shown')
  t.equal(renderer.renders, 1001, 'each banner rendered for its request')
  t.equal(markup.size, 1, 'no free text kept')
  t.match(markup.forQuery('view=register', 'signin.example.com', ENGLISH).html, 'Create your account')
  t.equal(renderer.renders, 1001, 'the plain register view is still a kept render')
  for (const freeText of ['error=Nope', 'oidc&email=ada%40example.com&id=one-time&login']) {
    markup.forQuery(freeText, 'signin.example.com', ENGLISH)
    t.equal(markup.size, 1, `${freeText}: not kept`)
  }
})

t.test('over the render budget the page goes out with an empty root; kept renderings still answer; the budget refills', async (t) => {
  let clock = 0
  const renderer = countingRenderer()
  const markup = new PageMarkup(renderer, { now: () => clock, rendersPerSecond: 10 })
  t.match(markup.forQuery('', 'signin.example.com', ENGLISH).html, 'class="page"')
  const answers = Array.from({ length: 50 }, (_, index) => markup.forQuery(`home_page_banner=B${index}`, 'signin.example.com', ENGLISH))
  t.equal(renderer.renders, 10, 'renders bounded by the budget within the second')
  t.equal(answers.filter((answer) => answer.html === '').length, 41, 'the rest: an empty root, for the scripts to render')
  t.equal(markup.forQuery('view=register', 'signin.example.com', ENGLISH).html, '', 'a new view over the budget too')
  t.match(markup.forQuery('redirect=%2Fz', 'signin.example.com', ENGLISH).html, 'href="/?view=register&amp;redirect=%2Fz"', 'a kept rendering is no render')
  clock += 1000
  t.match(markup.forQuery('view=register', 'signin.example.com', ENGLISH).html, 'Create your account', 'a second later the budget is back')
  t.equal(MAX_CACHED_MARKUPS > 0 && UNCACHED_RENDERS_PER_SECOND, 200)
})

t.test('the kept renderings are least recently used: a stream of new views pushes out the old, which is rendered and kept again', async (t) => {
  let clock = 0
  const renderer = countingRenderer()
  const markup = new PageMarkup(renderer, { now: () => clock })
  markup.forQuery('view=register', 'signin.example.com', ENGLISH)
  for (let index = 0; index < MAX_CACHED_MARKUPS; index++) {
    clock += 10
    markup.forQuery('view=register', 'signin.example.com', ENGLISH) // in use: never the least recent
    markup.forQuery('view=login', `host-${index}.example.com`, ENGLISH)
  }
  t.equal(markup.size, MAX_CACHED_MARKUPS)
  const before = renderer.renders
  markup.forQuery('view=register', 'signin.example.com', ENGLISH)
  t.equal(renderer.renders, before, 'the view in use stayed')
  markup.forQuery('view=login', 'host-0.example.com', ENGLISH)
  t.equal(renderer.renders, before + 1, 'the oldest was pushed out, and is rendered again')
  markup.forQuery('view=login', 'host-0.example.com', ENGLISH)
  t.equal(renderer.renders, before + 1, 'and kept again')
})

t.test('pageAnswer.pageWithState answers a post with the full page: the state rendered and embedded, the CSP', async (t) => {
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
  t.match(response.headers.get('content-security-policy'), /script-src 'self' https:/)
  t.match(html, /<script type="module" src="\/assets\/main-[^"]+\.js"><\/script>/, 'the entry script, allowed by \'self\'')
  t.match(html, '<title>Error: Log in · Threshold</title>', 'the state\'s view, its refusal announced in the title')
  t.match(html, 'value="ada@example.com"')
  t.match(html, 'Invalid email or password.')
  const embedded = new RegExp(`<script type="application/json" id="${PAGE_STATE_ELEMENT_ID}">([^<]*)</script>`).exec(html)?.[1]
  t.same(parsePageFormState(embedded), state, 'the state embedded for the scripts')
})

t.test('without scripts, login_hint fills the email on the login and register views, each request its own', async (t) => {
  const app = await buildEdge(t)
  for (const [query, name] of [['', 'login'], ['&view=register', 'register']] as const) {
    const ada = await app.inject({ url: `/?redirect=%2Foidc%2Finteraction%2Fuid-1&login_hint=ada%40example.test${query}` })
    t.match(ada.body, /<input[^>]*name="email"[^>]*value="ada@example.test"/, `${name}: the hint is in the rendered field`)
    const grace = await app.inject({ url: `/?redirect=%2Foidc%2Finteraction%2Fuid-2&login_hint=grace%40example.test${query}` })
    t.match(grace.body, /<input[^>]*name="email"[^>]*value="grace@example.test"/, `${name}: another visitor's hint, never a kept one`)
    t.notMatch(grace.body, 'ada@example.test')
    const hostile = await app.inject({ url: `/?login_hint=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E${query}` })
    t.notMatch(hostile.body, '"><script>alert(1)', `${name}: the hint is escaped`)
  }
})

t.test('the page the provider sends a visitor to lets its login end at the client, on any https origin; others keep their form-action', async (t) => {
  const app = await buildEdge(t)
  const formAction = (csp: unknown): string => /form-action ([^;]*)/.exec(String(csp))?.[1] ?? ''
  const fromProvider = await app.inject({ url: '/?redirect=%2Foidc%2Finteraction%2Fuid-1&login_hint=ada%40example.test', headers: { host: 'signin.example.com' } })
  t.match(formAction(fromProvider.headers['content-security-policy']), /^'self' .*https:$/, 'the provider redirects to registered URIs only, after the post')
  const plain = await app.inject({ url: '/?redirect=%2Fapp', headers: { host: 'signin.example.com' } })
  t.notMatch(formAction(plain.headers['content-security-policy']), /https:( |$)/, 'any other page: only where a login may lead')
  const lookalike = await app.inject({ url: '/?redirect=https%3A%2F%2Fevil.example%2Foidc%2Finteraction%2Fx', headers: { host: 'signin.example.com' } })
  t.notMatch(formAction(lookalike.headers['content-security-policy']), /https:( |$)/, 'a redirect elsewhere naming the path is not the provider')
})

t.test('with an own accounts backend there is no provider, and no page allows more for naming its path', async (t) => {
  const app = await buildEdge(t, { env: { ACCOUNTS_URL: 'http://127.0.0.1:9' } })
  const page = await app.inject({ url: '/?redirect=%2Foidc%2Finteraction%2Fuid-1', headers: { host: 'signin.example.com' } })
  t.notMatch(/form-action ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1], /https:( |$)/)
})
