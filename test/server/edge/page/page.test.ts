import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { LOCALES } from '../../../../common/languages/message-catalogue.js'
import { formatMessage } from '../../../../common/languages/message-format.js'
import { parseRuntimeConfig, serializeRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { loadMessageCatalogues } from '../../../../server/edge/languages/message-catalogues.js'
import { MAX_CACHED_PAGE_HOSTS, PageTemplate } from '../../../../server/edge/page/page.js'
import { buildEdge, PUBLIC_DIR } from '../../../fixtures/servers/edge.js'

function embeddedConfig (html: string): unknown {
  const json = /<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1]
  return JSON.parse(json ?? 'null')
}

t.test('a configured text with replacement patterns ($\' $& $`) is embedded as written, and the page stays whole', async (t) => {
  const supportEmail = "help$'$&$`$$@acme.test" // PRODUCT_NAME allows no `$`; SUPPORT_EMAIL does
  const app = await buildEdge(t, { env: { SUPPORT_EMAIL: supportEmail } })
  const response = await app.inject({ url: '/' })
  t.same((embeddedConfig(response.body) as { supportEmail: string }).supportEmail, supportEmail)
  t.equal(response.body.match(/<html/g)?.length, 1, 'no second copy of the template')
  t.match(response.body, '<div id="root"><div class="page">')
})

t.test('GET / answers the page for any query string, with the runtime configuration embedded', async (t) => {
  const app = await buildEdge(t, {
    env: { PRODUCT_NAME: 'Acme Cloud', SUPPORT_EMAIL: 'help@acme.test', GOOGLE_CLIENT_ID: 'abc.apps.googleusercontent.com', REDIRECT_ALLOWED_HOSTS: '*.acme.test' },
    passwordResetCompletion: true
  })
  const headings: Record<string, string> = { '/?view=register': 'Create your account', '/?view=resetPassword&redirect=https%3A%2F%2Fapp.acme.test%2F': 'Reset your password' }
  for (const url of ['/', '/?view=register', '/?view=resetPassword&redirect=https%3A%2F%2Fapp.acme.test%2F', '/?%%%=&&==', `/?x=${'y'.repeat(4000)}`]) {
    const response = await app.inject({ url })
    const heading = headings[url] ?? 'Log in'
    t.equal(response.statusCode, 200, url.slice(0, 60))
    t.match(response.headers['content-type'], /^text\/html; charset=utf-8/)
    t.match(response.body, `<title>${heading} · Acme Cloud</title>`, 'the title follows the view')
    t.match(response.body, `<div id="root"><div class="page">`, 'the view is rendered into the root')
    t.match(response.body, `<h1 class="card__title">${heading}</h1>`)
  }
  const config = embeddedConfig((await app.inject({ url: '/' })).body)
  t.same(config, {
    productName: 'Acme Cloud',
    supportEmail: 'help@acme.test',
    googleClientId: 'abc.apps.googleusercontent.com',
    googleDisabledHostnames: [],
    redirectAllowedHosts: ['*.acme.test'],
    localAccountsAllowedHosts: [],
    cookieDomain: null,
    authCookieHttpOnly: false,
    passwordResetCompletion: true,
    domainCheckTimeoutMs: null,
    passkeyRpId: 'localhost',
    secondFactor: true,
    secondFactorRememberBrowser: true,
    // On by default with the embedded reference service, as the second factor is (docs/email-codes.md).
    emailCodes: true,
    logo: null,
    background: { kind: 'builtin' }
  })
})

t.test('PASSWORD_MIN_LENGTH reaches the page: the server-rendered hint says it, the page is told it; at 8 the configuration does not name it', async (t) => {
  const app = await buildEdge(t, { env: { PASSWORD_MIN_LENGTH: '15' }, passwordResetCompletion: true })
  for (const url of ['/?view=register', '/?view=setPassword&token=reset-token-1']) {
    const body = (await app.inject({ url })).body
    t.match(body, '>At least 15 characters.<', `${url}: the hint in the HTML`)
    const rendered = body.slice(body.indexOf('<div id="root">'), body.indexOf('<script type="application/json"'))
    t.notMatch(rendered, /At least (8|\{min\}) characters/, 'no other minimum, no placeholder')
    t.equal((embeddedConfig(body) as { passwordMinLength?: number }).passwordMinLength, 15, 'the page hydrates with the same minimum')
  }
  const german = (await app.inject({ url: '/?view=register', headers: { 'accept-language': 'de' } })).body
  t.match(german, '>Mindestens 15 Zeichen.<', 'in every language')
  const plain = await buildEdge(t)
  const body = (await plain.inject({ url: '/?view=register' })).body
  t.match(body, '>At least 8 characters.<')
  t.notOk(Object.hasOwn(embeddedConfig(body) as object, 'passwordMinLength'), 'the default costs the page no bytes')
})

t.test('the page is not rendered from the query string: markup in it goes nowhere', async (t) => {
  const app = await buildEdge(t)
  const response = await app.inject({ url: '/?view=%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E&error=%3Cimg%20src%3Dx%3E' })
  t.notMatch(response.body, /<script>alert|<img src=x/)
  t.match(response.body, '<h1 class="card__title">Log in</h1>', 'an unknown view is the login view')
})

t.test('the embedded JSON cannot close its script element', async (t) => {
  const text = serializeRuntimeConfig({
    productName: '</script><script>alert(1)</script>',
    supportEmail: 'a&b@example.com',
    googleClientId: null,
    googleDisabledHostnames: ['\u2028'],
    redirectAllowedHosts: [],
    localAccountsAllowedHosts: [],
    cookieDomain: null,
    authCookieHttpOnly: false,
    passwordResetCompletion: false,
    domainCheckTimeoutMs: null,
    passkeyRpId: null,
    secondFactor: false,
    secondFactorRememberBrowser: true,
    emailCodes: false,
    socialProviders: [],
    ssoDiscovery: false,
    passwordMinLength: 8,
    logo: { src: '/assets/brand/logo-X.png', alt: '</script>', width: 10, height: 10 },
    background: { kind: 'builtin' }
  })
  t.notMatch(text, /[<>&\u2028]/)
  t.equal(parseRuntimeConfig(text).productName, '</script><script>alert(1)</script>', 'and still reads back the same')
})

t.test('a missing or broken runtime configuration falls back to safe defaults', async (t) => {
  for (const text of [null, '', 'not json', '[]', '{"googleClientId": 5, "domainCheckTimeoutMs": -1, "passkeyRpId": 7}']) {
    const config = parseRuntimeConfig(text)
    t.equal(config.passkeyRpId, null, 'no passkeys unless the edge says where')
    t.equal(config.productName, 'Threshold')
    t.equal(config.googleClientId, null)
    t.equal(config.domainCheckTimeoutMs, null)
    t.equal(config.passwordResetCompletion, false)
  }
})

t.test('local-network mode adds exactly the allowed local accounts origin to connect-src', async (t) => {
  const app = await buildEdge(t, { env: { LOCAL_ACCOUNTS_ALLOWED_HOSTS: 'nas.lan' } })
  const cspFor = async (query: string, host = 'signin.example.com') =>
    String((await app.inject({ url: `/?${query}`, headers: { host } })).headers['content-security-policy'])
  const connectSrc = (csp: string) => /connect-src ([^;]*)/.exec(csp)?.[1]

  t.equal(connectSrc(await cspFor('')), "'self' https://accounts.google.com/gsi/")
  t.equal(connectSrc(await cspFor('local_accounts_host=localhost')), "'self' https://accounts.google.com/gsi/ http://localhost:10064")
  t.equal(connectSrc(await cspFor('local_accounts_host=127.0.0.1&local_accounts_port=9000')), "'self' https://accounts.google.com/gsi/ http://127.0.0.1:9000")
  t.equal(connectSrc(await cspFor('local_accounts_host=nas.lan')), "'self' https://accounts.google.com/gsi/ https://nas.lan:10064")
  t.equal(connectSrc(await cspFor('local_accounts_host=signin.example.com&local_accounts_port=443')), "'self' https://accounts.google.com/gsi/ https://signin.example.com", 'the page\'s own host')
  for (const refused of ['local_accounts_host=evil.test', 'local_accounts_host=nas.lan.evil.test', 'local_accounts_host=localhost&local_accounts_port=99999', 'local_accounts_host=a%20b', "local_accounts_host=x';script-src"]) {
    t.equal(connectSrc(await cspFor(refused)), "'self' https://accounts.google.com/gsi/", `${refused} adds nothing`)
  }
})

t.test('the page\'s Content-Length counts bytes, with a product name outside ASCII', async (t) => {
  const { listen } = await import('../../../fixtures/servers/edge.js')
  const app = await buildEdge(t, { env: { PRODUCT_NAME: 'Zürich Wolke' } })
  const base = await listen(app)
  const response = await fetch(`${base}/`, { headers: { 'accept-encoding': 'identity' } })
  const body = Buffer.from(await response.arrayBuffer())
  t.equal(Number(response.headers.get('content-length')), body.length)
  t.match(body.toString('utf8'), /<title>Log in · Zürich Wolke<\/title>/)
  t.match(body.toString('utf8'), /<\/html>\s*$/, 'the whole page arrived')
})

t.test('the page embeds the cookie domain decided for the host the browser asked for', async (t) => {
  const app = await buildEdge(t)
  const cookieDomainAt = async (host: string) =>
    (embeddedConfig((await app.inject({ url: '/', headers: { host } })).body) as { cookieDomain: unknown }).cookieDomain
  t.equal(await cookieDomainAt('signin.example.com'), 'example.com')
  t.equal(await cookieDomainAt('a.b.example.com:8443'), 'b.example.com')
  t.equal(await cookieDomainAt('example.co.uk'), 'example.co.uk', 'not co.uk, which would let evil-shop.co.uk in')
  t.equal(await cookieDomainAt('signin.example.co.uk'), 'example.co.uk')
  t.equal(await cookieDomainAt('demo.herokuapp.com'), 'demo.herokuapp.com', 'not herokuapp.com, which every Heroku app shares')
  t.equal(await cookieDomainAt('herokuapp.com'), null, 'a public suffix: host-only')
  t.equal(await cookieDomainAt('localhost:8080'), null)
  t.equal(await cookieDomainAt('[::1]:8080'), null)
  t.equal(await cookieDomainAt('signin.example.com'), 'example.com', 'asked again: the same page')
})

t.test('COOKIE_DOMAIN is embedded whatever the host', async (t) => {
  const app = await buildEdge(t, { env: { COOKIE_DOMAIN: '.Corp.example.com' } })
  for (const host of ['signin.corp.example.com', 'example.co.uk', 'localhost']) {
    const config = embeddedConfig((await app.inject({ url: '/', headers: { host } })).body) as { cookieDomain: unknown }
    t.equal(config.cookieDomain, 'corp.example.com', host)
  }
})

t.test('invented hosts beyond the cache are still answered with their own cookie domain', async (t) => {
  const app = await buildEdge(t)
  for (let index = 0; index < MAX_CACHED_PAGE_HOSTS + 5; index++) {
    const response = await app.inject({ url: '/', headers: { host: `h${index}.attacker.test` } })
    t.equal((embeddedConfig(response.body) as { cookieDomain: unknown }).cookieDomain, 'attacker.test')
    if (index < MAX_CACHED_PAGE_HOSTS) continue
    t.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body), `h${index}: uncached, complete`)
  }
  const late = await app.inject({ url: '/', headers: { host: 'signin.example.co.uk' } })
  t.equal((embeddedConfig(late.body) as { cookieDomain: unknown }).cookieDomain, 'example.co.uk', 'a real host after the flood')
})

t.test('behind a trusted proxy the cookie domain follows the host the visitor asked for, not the internal name', async (t) => {
  const cookieDomainOf = async (env: Record<string, string>) => {
    const app = await buildEdge(t, { env })
    const response = await app.inject({ url: '/', headers: { host: 'threshold-internal:8080', 'x-forwarded-host': 'SignIn.Example.co.uk' } })
    return (embeddedConfig(response.body) as { cookieDomain: unknown }).cookieDomain
  }
  t.equal(await cookieDomainOf({ TRUST_PROXY: 'loopback' }), 'example.co.uk', 'the trusted proxy\'s X-Forwarded-Host, in canonical form')
  t.equal(await cookieDomainOf({}), null, 'an untrusted X-Forwarded-Host is ignored: the single-label Host gets host-only cookies')
})

t.test('attack: a configured text naming a per-request slot stays text in the configuration; nothing is filled into it', async (t) => {
  for (const slot of ['__THRESHOLD_ROOT__', '__THRESHOLD_MESSAGES__', '__THRESHOLD_LANG__', '__THRESHOLD_DIR__', '__THRESHOLD_TITLE__', '__THRESHOLD_DESCRIPTION__', '__THRESHOLD_STATE__']) {
    const productName = `Acme ${slot} x`
    const app = await buildEdge(t, { env: { PRODUCT_NAME: productName } })
    const response = await app.inject({ url: '/' })
    t.equal(response.statusCode, 200, slot)
    t.equal((embeddedConfig(response.body) as { productName: string } | null)?.productName, productName, `${slot}: the configuration holds the text as written`)
    t.equal(response.body.match(/<div class="page">/g)?.length, 1, `${slot}: the view is rendered once, in the root only`)
    t.equal(response.body.match(/id="threshold-messages"/g)?.length, 1, `${slot}: the catalogue is embedded once`)
  }
})

t.test('a view left unrendered (a failed render, or over the budget) is titled by its own heading in the chosen language', async (t) => {
  const app = await buildEdge(t, { env: { PRODUCT_NAME: 'Acme' }, pageRenderer: () => ({ render () { throw new Error('render failed') } }) })
  const german = await app.inject({ url: '/?view=register', headers: { 'accept-language': 'de' } })
  t.equal(german.statusCode, 200)
  t.match(german.body, '<div id="root"></div>', 'the root is left empty for the scripts')
  t.match(german.body, '<title>Konto erstellen · Acme</title>')
  const english = await app.inject({ url: '/' })
  t.match(english.body, '<title>Log in · Acme</title>')
  t.notMatch(english.body, 'Sign in ·')
})

/** The page's `<meta name="description">` content, as written in the HTML. */
function metaDescription (html: string): string | undefined {
  return /<meta name="description" content="([^"]*)">/.exec(html)?.[1]
}

t.test('every language\'s page has a meta description in its language, and stays noindex', async (t) => {
  const app = await buildEdge(t, { env: { PRODUCT_NAME: 'Acme Cloud' } })
  const seen = new Set<string>()
  for (const locale of LOCALES) {
    const catalogue = JSON.parse(readFileSync(new URL(`../../../../common/messages/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>
    for (const url of ['/', '/?view=register', '/?view=resetPassword']) {
      const body = (await app.inject({ url, headers: { 'accept-language': locale } })).body
      t.match(body, `<html lang="${locale}"`, `${locale} ${url}`)
      t.equal(metaDescription(body), formatMessage(catalogue['page.description']!, { product: 'Acme Cloud' }), `${locale} ${url}: its language's text`)
      t.match(body, '<meta name="robots" content="noindex">')
      seen.add(metaDescription(body)!)
    }
  }
  t.equal(seen.size, LOCALES.length, 'one text per language, none left in English')
  t.notMatch(JSON.stringify(seen), 'page.description', 'no key shows in place of a text')
})

t.test('attack: a product name with `"<` stays text inside the description\'s attribute', async (t) => {
  // PRODUCT_NAME refuses these characters (server/edge/config.ts); the page escapes whatever it is given all the same.
  const productName = 'Acme "><script>alert(1)</script>'
  const template = await PageTemplate.load(join(PUBLIC_DIR, 'index.html'), { ...parseRuntimeConfig(null), productName }, () => null,
    await loadMessageCatalogues({}, { google: false }))
  for (const locale of LOCALES) {
    const html = template.forHost('localhost').render({ locale, rendered: { html: '', heading: 'Heading' }, state: null, query: '' })
    const description = metaDescription(html)
    t.ok(description?.includes('Acme &#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;'), `${locale}: escaped (${description})`)
    t.notMatch(html, '<script>alert(1)', `${locale}: no element of the name's making`)
    t.equal(html.match(/<meta name="description"/g)?.length, 1)
  }
})

t.test('the page\'s CSS is inline in its head, allowed by its hash; no stylesheet blocks the first paint', async (t) => {
  const app = await buildEdge(t)
  const response = await app.inject({ url: '/' })
  const head = response.body.slice(0, response.body.indexOf('</head>'))
  const styles = [...head.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1]!)
  t.equal(styles.length, 1, 'one <style>, the build\'s')
  t.notMatch(response.body, /<link rel="stylesheet"/)
  const styleSrc = /(?:^|;)\s*style-src ([^;]*)/.exec(response.headers['content-security-policy'] as string)?.[1] ?? ''
  t.match(styleSrc, `'sha256-${createHash('sha256').update(styles[0]!, 'utf8').digest('base64')}'`)
  t.notMatch(styleSrc, /unsafe-inline|nonce-/, 'no other inline style is allowed')
})

t.test('attack: a <style> in the query is neither in the page nor allowed by its hash', async (t) => {
  // Only what the template holds when the edge loads it is hashed, never a request's text.
  const app = await buildEdge(t)
  const response = await app.inject({ url: '/?x=%3Cstyle%3Ebody%7Bdisplay:none%7D%3C/style%3E' })
  const injected = `'sha256-${createHash('sha256').update('body{display:none}', 'utf8').digest('base64')}'`
  t.notMatch(response.headers['content-security-policy'], injected)
  t.notMatch(response.body, '<style>body{display:none}')
})
