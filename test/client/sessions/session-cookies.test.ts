import '../../fixtures/page/dom.js'
import t from 'tap'
import { storeSessionTokens } from '../../../client/sessions/session-cookies.js'
import { sessionCookieAttributes } from '../../../common/sessions/session-cookies.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { recordCookieWrites } from '../../fixtures/page/document-cookies.js'

function pageCookies (): Record<string, string> {
  return Object.fromEntries(document.cookie.split('; ').filter(Boolean).map((pair) => pair.split('=') as [string, string]))
}

t.test('the cookies last 14 days, Secure, SameSite=Lax, on the whole site, on the domain the edge gave', async (t) => {
  t.same(sessionCookieAttributes('example.com'), { expires: 14, secure: true, sameSite: 'Lax', path: '/', domain: 'example.com' })
  t.same(sessionCookieAttributes(null), { expires: 14, secure: true, sameSite: 'Lax', path: '/' }, 'null: host-only')
})

t.test('storing the auth token writes the auth cookie alone and says it was kept', async (t) => {
  setPageUrl('https://sub.example.com/')
  t.equal(storeSessionTokens({ auth: 'eyJ.auth.token' }, 'example.com'), true)
  t.equal(pageCookies().auth, 'eyJ.auth.token')
  t.equal(pageCookies().refresh, undefined, 'the refresh cookie is the edge\'s, HttpOnly')
})

t.test('a refresh token from local-network mode, which no edge saw, is written beside it', async (t) => {
  setPageUrl('https://lan.example.net/')
  t.equal(storeSessionTokens({ auth: 'eyJ.lan', refresh: 'lan-refresh' }, 'example.net'), true)
  t.equal(pageCookies().auth, 'eyJ.lan')
  t.equal(pageCookies().refresh, 'lan-refresh')
})

t.test('a cookie domain the browser refuses falls back to host-only cookies', async (t) => {
  setPageUrl('https://signin.acme.test/')
  t.equal(storeSessionTokens({ auth: 'eyJ.acme' }, 'other.test'), true)
  t.equal(pageCookies().auth, 'eyJ.acme')
})

t.test('tokens the browser does not keep are reported, not taken for a sign-in', async (t) => {
  // A Secure cookie on a plain-http page off loopback: the browser drops it, as it drops one over 4096 bytes.
  setPageUrl('http://signin.example.com/')
  t.equal(storeSessionTokens({ auth: 'eyJ.dropped' }, 'example.com'), false)
  t.equal(pageCookies().auth, undefined)
  t.equal(storeSessionTokens({ auth: 'eyJ.dropped', refresh: 'dropped-refresh' }, 'example.com'), false, 'in local-network mode too')
})

t.test('on a loopback page over plain http the token cookies go without Secure, which WebKit would not keep there; everywhere else with it', async (t) => {
  for (const url of ['http://localhost:8080/', 'http://127.0.0.1:8080/', 'http://[::1]:8080/', 'http://signin.localhost/']) {
    setPageUrl(url)
    const written = recordCookieWrites(() => { t.equal(storeSessionTokens({ auth: 'eyJ.local', refresh: 'local-refresh' }, null), true, `${url}: kept`) })
    t.equal(written.length, 2, `${url}: both cookies written`)
    t.notOk(written.some((cookie) => /;\s*secure/i.test(cookie)), `${url}: without Secure`)
    t.ok(written.every((cookie) => /;\s*samesite=lax/i.test(cookie)), `${url}: the other attributes stay`)
  }
  for (const url of ['https://localhost:8080/', 'https://signin.example.com/', 'http://signin.example.com/', 'http://localhost.example.com/', 'http://127.0.0.1.nip.io/']) {
    setPageUrl(url)
    const written = recordCookieWrites(() => { storeSessionTokens({ auth: 'eyJ.secure' }, null) })
    t.ok(written.length > 0 && written.every((cookie) => /;\s*secure/i.test(cookie)), `${url}: Secure`)
  }
})
