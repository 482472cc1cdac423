import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import englishCatalogue from '../../../../common/messages/en.json' with { type: 'json' }
import { buildEdge, DEAD_UPSTREAM, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { followFlash, formBody, PAGE_POST_HEADERS, stateIn } from '../../../fixtures/no-script/form-page.js'
import { injectLogin } from '../../../fixtures/sign-in/sign-in.js'

/**
 * The operator's German and French for the texts these tests read, so that
 * they hold whatever the shipped translations say (MESSAGES_DIR wins over them).
 */
const GERMAN = {
  'server.accountsUnavailable': 'Der Kontodienst ist nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
  'server.notFound': 'Nicht gefunden.',
  'server.crossSite': 'Anfragen von anderen Websites sind nicht erlaubt.',
  'server.bodyType': 'Der Inhalt der Anfrage muss {types} sein.',
  'page.titleWithError': 'Fehler: {heading} · {product}',
  'server.continueToProvider': 'Weiter zu Ihrem Identitätsanbieter'
}
const FRENCH = { 'server.crossSite': 'Les requêtes d\'un autre site ne sont pas autorisées.' }

function messagesDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-messages-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'de.json'), JSON.stringify(GERMAN))
  writeFileSync(join(dir, 'fr.json'), JSON.stringify(FRENCH))
  return dir
}

const JSON_CALL = { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', host: 'localhost' }

t.test('the edge\'s JSON answers are in the language of the call\'s Accept-Language', async (t) => {
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t) }, accountsUpstream: DEAD_UPSTREAM })
  const login = (headers: Record<string, string>) => injectLogin(app, 'a@b.test', 'x', { headers: { ...JSON_CALL, ...headers } })
  const german = await login({ 'accept-language': 'de' })
  t.same([german.statusCode, german.json()], [503, { error: GERMAN['server.accountsUnavailable'] }], 'the proxy\'s failure text in German')
  t.same((await login({})).json(), { error: englishCatalogue['server.accountsUnavailable'] }, 'in English without the header')
  t.same((await login({ 'accept-language': 'sw' })).json(), { error: englishCatalogue['server.accountsUnavailable'] }, 'and for a language not shipped')

  const notFound = await app.inject({ url: '/accounts/nowhere', headers: { 'accept-language': 'de-CH' } })
  t.same([notFound.statusCode, notFound.json()], [404, { error: GERMAN['server.notFound'] }])
  const wrongType = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_CALL, 'content-type': 'text/plain', 'accept-language': 'de' }, payload: 'x' })
  t.same([wrongType.statusCode, wrongType.json()], [415, { error: 'Der Inhalt der Anfrage muss application/json sein.' }], 'a refusal with its placeholder filled')
  const crossSite = await app.inject({ method: 'POST', url: '/accounts/v2/login', headers: { ...JSON_CALL, 'sec-fetch-site': 'cross-site', 'accept-language': 'fr' }, payload: '{}' })
  t.same([crossSite.statusCode, crossSite.json()], [403, { error: FRENCH['server.crossSite'] }])
})

t.test('a refused form post is answered in the posted page\'s language: its ui_locales, else Accept-Language', async (t) => {
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t), TRUST_PROXY: 'loopback' }, accountsUpstream: DEAD_UPSTREAM })
  const crossSite = (url: string, headers: Record<string, string> = {}) => app.inject({
    method: 'POST', url, headers: { ...PAGE_POST_HEADERS, 'sec-fetch-site': 'cross-site', origin: 'https://evil.test', ...headers }, payload: formBody({ form: 'login', email: 'ada@example.com', password: 'pw' })
  })
  const german = await crossSite('/?ui_locales=de', { 'accept-language': 'fr' })
  t.equal(german.statusCode, 403)
  t.match(stateIn(german.body), { notice: { kind: 'error', text: GERMAN['server.crossSite'] } })
  t.match(german.body, '<html lang="de" dir="ltr"', 'the page around it is German too')
  t.match(german.body, /<title>Fehler: [^<]+ · Threshold<\/title>/, 'and its title announces the error in German')
  t.match(stateIn((await crossSite('/', { 'accept-language': 'fr-FR' })).body), { notice: { text: FRENCH['server.crossSite'] } }, 'Accept-Language without ui_locales')
  t.match(stateIn((await crossSite('/')).body), { notice: { text: englishCatalogue['server.crossSite'] } })
})

t.test('a login posted without scripts from a German page shows the accounts failure in German, after its 303', async (t) => {
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t), TRUST_PROXY: 'loopback' }, accountsUpstream: DEAD_UPSTREAM })
  const posted = await app.inject({ method: 'POST', url: '/?ui_locales=de', headers: PAGE_POST_HEADERS, payload: formBody({ form: 'login', email: 'ada@example.com', password: 'pw' }) })
  t.equal(posted.statusCode, 303)
  const page = await followFlash(app, posted)
  t.match(stateIn(page.body), { notice: { kind: 'error', text: GERMAN['server.accountsUnavailable'] }, email: 'ada@example.com' },
    'the inner call asked in German, the page\'s language, not the browser\'s')
  t.match(page.body, '<html lang="de" dir="ltr"')
})

t.test('the page-not-found page is in the visitor\'s language, Arabic right to left', async (t) => {
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t) } })
  const english = await app.inject({ url: '/nowhere' })
  t.equal(english.statusCode, 404)
  t.match(english.body, `<html lang="en" dir="ltr"`)
  t.match(english.body, `<h1>${englishCatalogue['server.notFoundTitle']}</h1>`)
  t.equal(english.headers.vary, 'Accept-Language')
  const arabic = await app.inject({ url: '/nowhere?ui_locales=ar', headers: { 'accept-language': 'de' } })
  t.match(arabic.body, '<html lang="ar" dir="rtl"', 'ui_locales in its address first')
  t.match((await app.inject({ url: '/nowhere', headers: { 'accept-language': 'de' } })).body, '<html lang="de" dir="ltr"')
  const hostile = await app.inject({ url: `/nowhere?ui_locales=${encodeURIComponent('"><script>alert(1)</script>')}` })
  t.match(hostile.body, '<html lang="en" dir="ltr"')
  t.notMatch(hostile.body, '<script>alert', 'nothing of the address in the page')
})

t.test('an SSO start posted from a German page goes on to the identity provider by a German page', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(200, { sso_url: 'https://idp.example.com/sso' }))
  const app = await buildEdge(t, { env: { MESSAGES_DIR: messagesDir(t), TRUST_PROXY: 'loopback' }, accountsUpstream: upstream.url })
  const response = await app.inject({ method: 'POST', url: '/?ui_locales=de', headers: PAGE_POST_HEADERS, payload: formBody({ form: 'sso', email: 'ada@corp.example' }) })
  t.equal(response.statusCode, 200)
  t.match(response.body, '<html lang="de" dir="ltr"')
  t.match(response.body, `<a href="https://idp.example.com/sso">${GERMAN['server.continueToProvider']}</a>`)
  t.equal(upstream.requests[0]!.headers['accept-language'], 'de', 'the accounts call asked in the page\'s language')
})

t.test('several accepted media types are listed with commas, no English joining word inside a translated text', async (t) => {
  const app = await buildEdge(t, { edgeAuthUpstream: DEAD_UPSTREAM })
  const response = await app.inject({ method: 'POST', url: '/edgeauth.v1.EdgeAuthMetadataService/CheckDomainAuthorization', headers: { 'content-type': 'text/plain', 'accept-language': 'de' }, payload: 'x' })
  t.equal(response.statusCode, 415)
  const text = decodeURIComponent(String(response.headers['grpc-message'] ?? response.body))
  t.match(text, 'application/grpc-web, application/grpc-web+proto, ', 'the gRPC answer words it in English (its grpc-message); the list is what changed')
  t.notMatch(text, ' or ')
})
