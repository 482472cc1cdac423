import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { createPageRenderer } from '../../../../client/server-render.js'
import { ADDRESS_NOTICE_PREFIX, hasPrefix, LATER_PREFIXES, OPENING_VIEW_KEYS, MESSAGES_ELEMENT_ID, SERVER_ONLY_PREFIX, SERVER_RENDERED_ONLY_PREFIXES, type PageMessages } from '../../../../common/languages/message-catalogue.js'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import frenchCatalogue from '../../../../common/messages/fr.json' with { type: 'json' }
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import type { PageRenderer } from '../../../../common/page/page-render.js'
import { PageMarkup } from '../../../../server/edge/page/page-markup.js'
import { buildEdge } from '../../../fixtures/servers/edge.js'
import { TEST_GOOGLE_CLIENT_ID } from '../../../fixtures/google/google-identity.js'

const GOOGLE_BUTTON_KEYS = ['methods.loginWithGoogle', 'methods.signUpWithGoogle']

const htmlAttributes = (body: string) => /<html lang="([^"]*)" dir="([^"]*)"[ >]/.exec(body)?.slice(1)

function embeddedMessages (body: string): PageMessages {
  const scripts = [...body.matchAll(new RegExp(`<script type="application/json" id="${MESSAGES_ELEMENT_ID}">([^<]*)</script>`, 'g'))]
  if (scripts.length !== 1) throw new Error(`expected one catalogue in the page, found ${scripts.length}`)
  return JSON.parse(scripts[0]![1]!) as PageMessages
}

/** A MESSAGES_DIR with these catalogues, removed when the test ends. */
function messagesDir (t: Test, catalogues: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-messages-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const [locale, texts] of Object.entries(catalogues)) writeFileSync(join(dir, `${locale}.json`), JSON.stringify(texts))
  return dir
}

t.test('ui_locales wins over Accept-Language, which wins over DEFAULT_LOCALE', async (t) => {
  const app = await buildEdge(t, { env: { DEFAULT_LOCALE: 'fr' } })
  const langOf = async (url: string, acceptLanguage?: string) =>
    htmlAttributes((await app.inject({ url, headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage } })).body)?.[0]
  t.equal(await langOf('/?ui_locales=ja%20de', 'es'), 'ja')
  t.equal(await langOf('/?ui_locales=sw+de-AT', 'es'), 'de', 'the first supported, by its primary subtag')
  t.equal(await langOf('/?ui_locales=sw', 'ga, es-MX;q=0.8'), 'es', 'an unsupported ui_locales falls through quietly')
  t.equal(await langOf('/?ui_locales=zh-TW'), 'zh-Hant', 'Taiwan reads Traditional Chinese')
  t.equal(await langOf('/', 'pt'), 'pt-BR', 'Portuguese without a region is Brazil\'s')
  t.equal(await langOf('/', 'sw'), 'fr', 'nothing supported: DEFAULT_LOCALE')
  t.equal(await langOf('/'), 'fr')
})

t.test('<html lang dir> follow the language: Arabic is right to left', async (t) => {
  const app = await buildEdge(t)
  t.same(htmlAttributes((await app.inject({ url: '/' })).body), ['en', 'ltr'])
  t.same(htmlAttributes((await app.inject({ url: '/', headers: { 'accept-language': 'ar-EG,ar;q=0.9' } })).body), ['ar', 'rtl'])
  t.same(htmlAttributes((await app.inject({ url: '/?view=register&ui_locales=ar' })).body), ['ar', 'rtl'])
})

t.test('the page carries one language\'s catalogue, without the edge\'s own texts, and says it varies with Accept-Language', async (t) => {
  const app = await buildEdge(t)
  const page = await app.inject({ url: '/?ui_locales=de' })
  // And with Accept-Encoding: the page is sent compressed (server/edge/page/compressed-pages.ts).
  t.equal(page.headers.vary, 'Accept-Encoding, Accept-Language')
  const messages = embeddedMessages(page.body)
  t.equal(messages.locale, 'de')
  t.same(Object.keys(messages.catalogue), Object.keys(englishCatalogue).filter((key) => !key.startsWith(SERVER_ONLY_PREFIX) &&
    !hasPrefix(key, SERVER_RENDERED_ONLY_PREFIXES) && !hasPrefix(key, LATER_PREFIXES) && !key.startsWith(ADDRESS_NOTICE_PREFIX) &&
    !GOOGLE_BUTTON_KEYS.includes(key) && !OPENING_VIEW_KEYS.includes(key)),
  'every key the scripts show at first; no server key, no later key, no notice the address does not name, no method not offered, no view the page cannot switch to')
  t.ok(page.body.indexOf(`id="${MESSAGES_ELEMENT_ID}"`) > page.body.indexOf('id="threshold-config"'), 'right after the runtime configuration')
  t.equal((await app.inject({ method: 'HEAD', url: '/', headers: { 'accept-language': 'de' } })).headers.vary, 'Accept-Encoding, Accept-Language')
})

t.test('the Google buttons\' labels come only where Google is offered; its error texts always', async (t) => {
  const without = embeddedMessages((await (await buildEdge(t)).inject({ url: '/?ui_locales=fr' })).body).catalogue
  const withGoogle = embeddedMessages((await (await buildEdge(t, { env: { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID } })).inject({ url: '/?ui_locales=fr' })).body).catalogue
  for (const key of GOOGLE_BUTTON_KEYS) {
    t.notOk(Object.hasOwn(without, key), `${key}: not without Google`)
    t.equal(withGoogle[key as keyof typeof withGoogle], frenchCatalogue[key as keyof typeof frenchCatalogue], `${key}: in French with Google`)
  }
  t.ok(Object.hasOwn(without, 'error.GOOGLE_LOGIN_FAILED'), 'the error a product may name in the address stays')
})

t.test('the set-password and account views\' own texts come only with a page that opens on them', async (t) => {
  const app = await buildEdge(t, { passwordResetCompletion: true })
  const keysOf = async (url: string) => Object.keys(embeddedMessages((await app.inject({ url })).body).catalogue)
  for (const url of ['/', '/?view=register', '/?view=resetPassword']) {
    const keys = await keysOf(url)
    t.notOk(OPENING_VIEW_KEYS.some((key) => keys.includes(key)), `${url}: none of them`)
  }
  const setPassword = await keysOf('/?view=setPassword&token=tok_1234567890abcdefghij&ui_locales=de')
  t.ok(OPENING_VIEW_KEYS.every((key) => setPassword.includes(key)), 'the set-password view: all of them')
})

t.test('a page whose address names a notice carries that notice\'s text, in its language, and no other notice\'s', async (t) => {
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t, { de: { 'notice.undoChange': 'Neues Passwort, dann rückgängig' } }) } })
  const notices = async (query: string): Promise<string[]> =>
    Object.keys(embeddedMessages((await app.inject({ url: `/?${query}` })).body).catalogue).filter((key) => key.startsWith(ADDRESS_NOTICE_PREFIX))
  t.same(await notices('view=setPassword&token=tok_1234567890abcdefghij&notice=undo-change&ui_locales=de'), ['notice.undoChange'])
  const german = embeddedMessages((await app.inject({ url: '/?view=setPassword&token=tok_1234567890abcdefghij&notice=undo-change&ui_locales=de' })).body)
  t.equal(german.catalogue['notice.undoChange'], 'Neues Passwort, dann rückgängig', 'the operator\'s text, in the page\'s language')
  t.same(await notices('notice=email-verified'), ['notice.emailVerified'])
  t.same(await notices(''), [], 'a plain page carries none')
  for (const made of ['notice=nonsense', 'notice=__proto__', 'notice=toString', `notice=${'x'.repeat(5000)}`]) {
    t.same(await notices(made), [], `${made.slice(0, 24)}: none, and the page answers`)
  }
  t.equal((await app.inject({ url: '/?notice=undo-change&notice=email-verified' })).statusCode, 200)
  t.same(await notices('notice=undo-change&notice=email-verified'), ['notice.undoChange'], 'the first of repeated keys, as the page reads it')
  const rendered = (await app.inject({ url: '/?view=setPassword&token=tok_1234567890abcdefghij&notice=end-sessions' })).body
  t.match(rendered, englishCatalogue['notice.endSessions'], 'the server-rendered view shows it too')
})

t.test('a plain page leaves the second factor\'s texts out and names where its language\'s are: an immutable, content-hashed asset', async (t) => {
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t, { de: { 'secondFactor.verify': 'Jetzt prüfen' } }) } })
  const german = embeddedMessages((await app.inject({ url: '/?ui_locales=de' })).body)
  const english = embeddedMessages((await app.inject({ url: '/' })).body)
  t.notOk(Object.keys(german.catalogue).some((key) => key.startsWith('secondFactor.')), 'no secondFactor.* key embedded')
  t.notOk(Object.keys(german.catalogue).some((key) => hasPrefix(key, LATER_PREFIXES)), 'nor any other later key (the challenge\'s, the breach notice\'s)')
  t.match(german.laterTextsUrl, /^\/assets\/messages\/de-[A-Za-z0-9_-]{10}\.json$/)
  t.not(german.laterTextsUrl, english.laterTextsUrl)
  const asset = await app.inject({ url: german.laterTextsUrl! })
  t.equal(asset.statusCode, 200)
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.match(asset.headers['content-type'], /^application\/json/)
  const texts = asset.json<Record<string, string>>()
  t.equal(texts['secondFactor.verify'], 'Jetzt prüfen', 'the operator\'s text is in it')
  t.ok(Object.keys(texts).length > 20 && Object.keys(texts).every((key) => hasPrefix(key, LATER_PREFIXES)), 'only the later texts')
  t.ok(['secondFactor.', 'browserCheck.', 'breachedPassword.'].every((prefix) => Object.keys(texts).some((key) => key.startsWith(prefix))), 'each lazy part\'s')
  const compressed = await app.inject({ url: german.laterTextsUrl!, headers: { 'accept-encoding': 'gzip' } })
  t.equal(compressed.headers['content-encoding'], 'gzip', 'compressed for a browser that takes it')
  t.same(JSON.parse(gunzipSync(compressed.rawPayload).toString('utf8')), texts)
  t.equal((await app.inject({ url: german.laterTextsUrl!.replace(/-[^-]+\.json$/, '-AAAAAAAAAA.json') })).statusCode, 404, 'another hash is not served')
})

t.test('an operator\'s text (MESSAGES_DIR) is what the page says, in its language only', async (t) => {
  const app = await buildEdge(t, {
    env: { MESSAGES_DIR: messagesDir(t, { de: { 'page.title': '{heading} | Anmeldung bei {product}', 'failure.busy': 'Gerade ist viel los.' } }) }
  })
  const german = await app.inject({ url: '/', headers: { 'accept-language': 'de' } })
  t.match(german.body, /<title>[^<]+ \| Anmeldung bei Threshold<\/title>/)
  t.equal(embeddedMessages(german.body).catalogue['failure.busy'], 'Gerade ist viel los.')
  const english = await app.inject({ url: '/' })
  t.match(english.body, /<title>[^<]+ · Threshold<\/title>/)
  t.equal(embeddedMessages(english.body).catalogue['failure.busy'], englishCatalogue['failure.busy'])
})

t.test('the view links keep ui_locales, so the visitor stays in their language from view to view', async (t) => {
  const app = await buildEdge(t, { passwordResetCompletion: true })
  const page = await app.inject({ url: '/?ui_locales=de&redirect=%2Fapp' })
  t.match(page.body, 'href="/?view=register&amp;ui_locales=de&amp;redirect=%2Fapp"')
  t.match(page.body, 'href="/?view=resetPassword&amp;ui_locales=de&amp;redirect=%2Fapp"')
  t.notMatch(page.body, /<form[^>]*action=/, 'and the forms post to the page\'s own address, ui_locales with it')
})

t.test('a hostile ui_locales or Accept-Language is inert: the default language, nothing of it in the markup unescaped', async (t) => {
  const app = await buildEdge(t)
  t.same(htmlAttributes((await app.inject({ url: `/?ui_locales=${encodeURIComponent('"><script>alert(1)</script> de')}` })).body), ['de', 'ltr'],
    'garbage beside a supported tag is skipped, the tag still counts')
  const hostile = [
    { url: `/?ui_locales=${encodeURIComponent('"><script>alert(1)</script>')}` },
    { url: `/?ui_locales=${encodeURIComponent('de\u0000\u0007 ar\u001b')}` },
    { url: `/?ui_locales=${'xx+'.repeat(34_000)}de` },
    { url: '/', headers: { 'accept-language': `${'x-'.repeat(50_000)}de` } },
    { url: '/', headers: { 'accept-language': 'de;q=<script>, "><img src=x onerror=alert(1)>' } }
  ]
  for (const request of hostile) {
    const started = performance.now()
    const page = await app.inject(request)
    t.equal(page.statusCode, 200)
    t.same(htmlAttributes(page.body), ['en', 'ltr'], `${request.url.slice(0, 40)}: the default language`)
    t.equal(embeddedMessages(page.body).locale, 'en')
    t.notMatch(page.body, /<script>alert|<img src=x/, 'nothing of it as markup')
    t.ok(performance.now() - started < 1000, 'answered as any page is')
  }
})

/** A renderer that writes its language into the view, to see which rendering a visitor is served. */
function languageRenderer (): PageRenderer & { renders: number } {
  const real = createPageRenderer(parseRuntimeConfig(JSON.stringify({ productName: 'Threshold', supportEmail: 'support@example.com' })))
  const renderer = {
    renders: 0,
    render (request: Parameters<PageRenderer['render']>[0]) {
      renderer.renders++
      const rendered = real.render(request)
      return { heading: rendered.heading, html: `<p lang="${request.messages.locale}"></p>${rendered.html}` }
    }
  }
  return renderer
}

t.test('renderings are kept per language: a German one is never served to an English visitor', async (t) => {
  const renderer = languageRenderer()
  const markup = new PageMarkup(renderer)
  const german: PageMessages = { locale: 'de', catalogue: englishCatalogue }
  const english: PageMessages = { locale: 'en', catalogue: englishCatalogue }
  t.match(markup.forQuery('view=register', 'signin.example.com', german).html, '<p lang="de">')
  t.match(markup.forQuery('view=register', 'signin.example.com', english).html, '<p lang="en">')
  t.match(markup.forQuery('view=register&redirect=%2Fx', 'signin.example.com', german).html, '<p lang="de">')
  t.equal(renderer.renders, 2, 'one rendering per language, each kept')

  const app = await buildEdge(t, { pageRenderer: () => languageRenderer() })
  t.match((await app.inject({ url: '/', headers: { 'accept-language': 'de' } })).body, '<p lang="de">')
  t.match((await app.inject({ url: '/' })).body, '<p lang="en">', 'the edge too')
})
