import t from 'tap'
import { PROVIDER_PAGE_TYPE } from '../../../../server/shared/oidc/provider-pages.js'
import en from '../../../../common/messages/en.json' with { type: 'json' }
import ar from '../../../../common/messages/ar.json' with { type: 'json' }
import de from '../../../../common/messages/de.json' with { type: 'json' }
import { edgeWithPages, PROVIDER_PAGES } from '../../../fixtures/oidc/provider-pages.js'
import { brandFolder, pngOf } from '../../../fixtures/brand/brand-files.js'
import { createHash } from 'node:crypto'

t.test('each provider page is rendered as a page with its status, and the JSON never reaches the browser', async (t) => {
  const { app } = await edgeWithPages(t)
  for (const [path, { status, page }] of Object.entries(PROVIDER_PAGES)) {
    const response = await app.inject({ method: 'GET', url: path, headers: { 'accept-language': 'en' } })
    t.equal(response.statusCode, status, `${page.page}: the provider's status`)
    t.match(response.headers['content-type'], /^text\/html; charset=utf-8/)
    t.equal(response.headers['cache-control'], 'no-store', `${page.page}: never stored`)
    t.match(response.headers['set-cookie'], /oidc_interaction=i1/, `${page.page}: the provider's cookie passes`)
    t.notMatch(response.body, PROVIDER_PAGE_TYPE)
    t.notMatch(response.body, /"page"\s*:/, `${page.page}: no trace of the JSON`)
    t.notMatch(response.body, /<script/i, `${page.page}: no script`)
    t.notMatch(response.headers['content-security-policy'], /script-src[^;]*'unsafe-inline'|nonce-/, `${page.page}: the CSP allows no inline script`)
    t.match(response.body, /<h1 class="card__title">/, `${page.page}: one heading`)
    t.match(response.body, /<link rel="stylesheet"|<link rel="icon"/, `${page.page}: the page's look`)
    t.match(response.body, /<html lang="en" dir="ltr"/)
  }
})

t.test('the consent page names the client, the account and what each scope means, with a form of two buttons', async (t) => {
  const { app } = await edgeWithPages(t)
  const response = await app.inject({ method: 'GET', url: '/oidc/interaction/uid-1', headers: { 'accept-language': 'en' } })
  const body = response.body
  t.match(body, 'Partner &#60;b&#62;Shop&#60;/b&#62;', 'the client\'s name, escaped')
  t.notMatch(body, '<b>Shop</b>')
  t.match(body, 'You are signed in as <bdi>ada@example.test</bdi>.')
  for (const scope of ['openid', 'email', 'profile', 'offline_access'] as const) t.match(body, en[`server.oidcScope.${scope}`].replace(/'/g, '&#39;'), scope)
  t.match(body, '<form class="form" method="post" action="/oidc/interaction/uid-1/consent">')
  t.match(body, /<button class="button button--primary" type="submit" name="decision" value="allow">Allow<\/button>/)
  t.match(body, /<button class="button button--secondary" type="submit" name="decision" value="deny">Deny<\/button>/)
  t.match(response.headers['content-security-policy'], /form-action 'self' https:/, 'the allow may end at the client\'s redirect URI')
})

t.test('the logout page carries the provider\'s xsrf and a button for each answer', async (t) => {
  const { app } = await edgeWithPages(t)
  const body = (await app.inject({ method: 'GET', url: '/oidc/session/end' })).body
  t.match(body, '<input type="hidden" name="xsrf" value="xsrf-token-1">')
  t.match(body, 'name="logout" value="yes"')
  t.match(body, en['server.oidcLogoutStay'])
  t.match(body, '<bdi>Partner Shop</bdi> asks you to sign out of <bdi>Threshold</bdi>.', 'names isolated, for right-to-left languages')
})

t.test('the signed-out page links back to the client over https only', async (t) => {
  const { app } = await edgeWithPages(t)
  const body = (await app.inject({ method: 'GET', url: '/oidc/session/end/success' })).body
  t.match(body, '<a href="https://shop.example/">Return to <bdi>Partner Shop</bdi></a>')
  t.match(body, en['server.oidcSignedOutHeading'])
})

t.test('the error page shows the code and the description, escaped', async (t) => {
  const { app } = await edgeWithPages(t)
  const response = await app.inject({ method: 'GET', url: '/oidc/auth' })
  t.equal(response.statusCode, 400)
  t.match(response.body, '<code>invalid_request</code>')
  t.match(response.body, 'redirect_uri did not match &#60;script&#62;alert(1)&#60;/script&#62;')
  t.match(response.headers['content-security-policy'], /form-action 'self'(;|$)/, 'no form: the strict form-action')
})

t.test('the language is the request\'s ui_locales first, then Accept-Language', async (t) => {
  const { app } = await edgeWithPages(t)
  const arabic = await app.inject({ method: 'GET', url: '/oidc/interaction/uid-1?ui_locales=ar%20en', headers: { 'accept-language': 'de' } })
  t.match(arabic.body, /<html lang="ar" dir="rtl"/)
  t.match(arabic.body, ar['server.oidcConsentAllow'])
  const german = await app.inject({ method: 'GET', url: '/oidc/session/end', headers: { 'accept-language': 'de-CH, en;q=0.5' } })
  t.match(german.body, /<html lang="de" dir="ltr"/)
  t.match(german.body, de['server.oidcLogoutStay'])
})

t.test('an answer that is not a provider page is a plain 502, nothing of it passed on', async (t) => {
  const bodies = [
    '{"page":"consent","secret":"internal-detail"',
    JSON.stringify({ page: 'consent', uiLocales: null, client: { name: 'x', uri: null }, account: { email: 'a@b' }, scopes: ['openid'], action: 'https://evil.example/steal' }),
    JSON.stringify({ page: 'unknown', uiLocales: null, detail: 'internal-detail' }),
    JSON.stringify(['internal-detail'])
  ]
  let next = 0
  const { app } = await edgeWithPages(t, (_request, response) => {
    response.writeHead(200, { 'content-type': PROVIDER_PAGE_TYPE, 'set-cookie': 'oidc_session=s; HttpOnly' })
    response.end(bodies[next++])
  })
  for (const body of bodies) {
    const response = await app.inject({ method: 'GET', url: '/oidc/interaction/uid-1', headers: { 'accept-language': 'en' } })
    t.equal(response.statusCode, 502, body)
    t.match(response.headers['content-type'], /^text\/plain/)
    t.equal(response.body, en['server.accountsUnreadable'])
    t.notOk(response.headers['set-cookie'], 'no cookie of an answer not passed on')
    t.notMatch(response.body, 'internal-detail')
  }
})

t.test('the provider\'s other answers pass as they came', async (t) => {
  const { app } = await edgeWithPages(t, (_request, response) => {
    response.writeHead(303, { location: 'https://shop.example/cb?code=c1&state=s' })
    response.end()
  })
  const response = await app.inject({ method: 'GET', url: '/oidc/auth/uid-1' })
  t.equal(response.statusCode, 303)
  t.equal(response.headers.location, 'https://shop.example/cb?code=c1&state=s')
})

t.test('the pages wear the operator\'s brand: the logo, the theme, the colours by their hash in the CSP', async (t) => {
  const logo = brandFolder().write('logo.png', pngOf(480, 80))
  const { app } = await edgeWithPages(t, undefined, { BRAND_LOGO: logo, BRAND_LOGO_ALT: 'Acme', BRAND_COLOR: '#0a6e4f', THEME: 'dark', PRODUCT_NAME: 'Acme Cloud' })
  const response = await app.inject({ method: 'GET', url: '/oidc/interaction/uid-1' })
  t.match(response.body, /<img class="card__logo" src="\/assets\/brand\/[^"]+" alt="Acme" width="240" height="40">/)
  t.match(response.body, '<html lang="en" dir="ltr" data-theme="dark">')
  t.match(response.body, '<p class="brand__name">Acme Cloud</p>')
  const styles = [...response.body.matchAll(/<style>([^<]+)<\/style>/g)].map((match) => match[1]!)
  t.match(styles.at(-1), ':root[data-theme="dark"]{--accent:#', 'the brand colours, last, so that they win')
  const hashes = styles.map((style) => `'sha256-${createHash('sha256').update(style).digest('base64')}'`)
  t.match(response.headers['content-security-policy'], `style-src 'self' ${hashes.join(' ')} https://accounts.google.com/gsi/style;`, 'each style is allowed by its hash, nothing inline else')
  const logoAnswer = await app.inject({ method: 'GET', url: /src="([^"]+)"/.exec(response.body)![1]! })
  t.equal(logoAnswer.statusCode, 200, 'the logo is served')
})
