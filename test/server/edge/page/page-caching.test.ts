import t from 'tap'
import { pageCacheControl, REVALIDATE_PRIVATELY } from '../../../../server/edge/page/page-caching.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'
import { followFlash, formBody, PAGE_POST_HEADERS } from '../../../fixtures/no-script/form-page.js'
import { authTokenFor } from '../../../fixtures/account/account-upstream.js'

/*
 * Which answers of the page the browser may keep (docs/security.md, "The
 * back/forward cache"): an opening view's plain GET is `private, no-cache`,
 * which lets it into the back/forward cache; anything that carries free text,
 * personal data, a secret or the visitor's state stays no-store.
 */

t.test('the opening views\' plain GETs (and HEADs) are private and revalidated, so the back/forward cache may keep them', async (t) => {
  const app = await buildEdge(t, { passwordResetCompletion: true })
  for (const url of ['/', '/?view=register', '/?view=resetPassword', '/?view=setPassword', '/?view=login&redirect=https%3A%2F%2Fapp.example.test%2F&ui_locales=de',
    '/?notice=password_set', '/?login_method=GOOGLE&allowed_org=acme&resource_type=db&cluster_name=east', '/?supports_domain_auth_check=true']) {
    for (const method of ['GET', 'HEAD'] as const) {
      const response = await app.inject({ method, url })
      t.equal(response.statusCode, 200, `${method} ${url}`)
      t.equal(response.headers['cache-control'], 'private, no-cache', `${method} ${url}`)
    }
  }
})

t.test('attack: a page showing free text, personal data or a secret from its address stays no-store', async (t) => {
  const app = await buildEdge(t, { passwordResetCompletion: true })
  const cases = [
    '/?login_hint=victim%40example.com',
    '/?view=register&login_hint=victim%40example.com',
    '/?email=victim%40example.com&id=return-1&saml&login',
    '/?social=github&id=return-1&login',
    '/?error=Your+account+is+locked',
    '/?home_page_banner=Welcome+back%2C+Ana',
    '/?view=setPassword&token=reset-token-1',
    // The name escaped is the same name.
    '/?%6Cogin_hint=victim%40example.com',
    '/?login%5Fhint=victim%40example.com',
    // A parameter the page does not know may be anything: private until someone says otherwise.
    '/?session_state=abc',
    '/?code=123456',
    '/?%%%=&&=='
  ]
  for (const url of cases) {
    const response = await app.inject({ url })
    t.equal(response.headers['cache-control'], 'no-store', url)
  }
})

t.test('a form post\'s answer, and the page after its 303, are no-store', async (t) => {
  const upstream = await startUpstream(t, jsonAnswer(401, { error: 'Wrong email or password.' }))
  const app = await buildEdge(t, { env: { TRUST_PROXY: 'loopback' }, accountsUpstream: upstream.url })
  const posted = await app.inject({ method: 'POST', url: '/', headers: PAGE_POST_HEADERS, payload: formBody({ form: 'login', email: 'ada@example.com', password: 'a password typed 7' }) })
  t.equal(posted.headers['cache-control'], 'no-store', 'the 303')
  const shown = await followFlash(app, posted)
  t.equal(shown.statusCode, 401)
  t.match(shown.body, 'ada@example.com', 'the page shows the visitor\'s email')
  t.equal(shown.headers['cache-control'], 'no-store', 'the page with the visitor\'s state')
})

t.test('the account view is no-store, signed in or not', async (t) => {
  const app = await buildEdge(t, { env: { TRUST_PROXY: 'loopback' } })
  const headers = { host: 'signin.example.com', 'x-forwarded-proto': 'https' }
  const signedOut = await app.inject({ url: '/?view=account', headers })
  t.equal(signedOut.statusCode, 303)
  t.equal(signedOut.headers['cache-control'], 'no-store')
  const signedIn = await app.inject({ url: '/?view=account', headers: { ...headers, cookie: `auth=${authTokenFor('ada@example.com')}` } })
  t.equal(signedIn.headers['cache-control'], 'no-store', `signed in (${signedIn.statusCode}: the service is down here)`)
})

t.test('pageCacheControl keeps only queries made wholly of the kept parameters', async (t) => {
  t.equal(pageCacheControl(''), REVALIDATE_PRIVATELY)
  t.equal(pageCacheControl('view=register&&'), REVALIDATE_PRIVATELY, 'empty segments are nothing')
  t.equal(pageCacheControl('view'), REVALIDATE_PRIVATELY, 'a name without a value')
  t.equal(pageCacheControl('view=login&login_hint='), 'no-store', 'an empty value still names the parameter')
  t.equal(pageCacheControl('view+=login'), 'no-store', '"view " is another name')
})
