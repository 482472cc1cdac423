import '../../fixtures/dom.js'
import t from 'tap'
import { cookieDomainFor } from '../../../common/hosts.js'
import { sessionCookieAttributes, storeSessionTokens } from '../../../client/lib/session-cookies.js'
import { setPageUrl } from '../../fixtures/dom.js'

t.test('the token cookies are scoped to the parent domain of the page\'s host', async (t) => {
  t.equal(cookieDomainFor('sub.example.com', null), 'example.com')
  t.equal(cookieDomainFor('a.b.example.com', null), 'b.example.com')
  t.equal(cookieDomainFor('example.com', null), 'example.com', 'two labels: its own parent (one up is a public suffix)')
  t.equal(cookieDomainFor('localhost', null), null, 'localhost: host-only')
  t.equal(cookieDomainFor('app.localhost', null), null)
  t.equal(cookieDomainFor('127.0.0.1', null), null, 'an IPv4 address: host-only')
  t.equal(cookieDomainFor('[::1]', null), null, 'an IPv6 address: host-only')
  t.equal(cookieDomainFor('intranet', null), null, 'a single label: host-only')
  t.equal(cookieDomainFor('sub.example.com', '.Corp.Example.com'), 'corp.example.com', 'COOKIE_DOMAIN wins')
})

t.test('the cookies last 14 days, Secure, SameSite=Lax, on the whole site', async (t) => {
  t.same(sessionCookieAttributes('sub.example.com', null), { expires: 14, secure: true, sameSite: 'Lax', path: '/', domain: 'example.com' })
  t.same(sessionCookieAttributes('localhost', null), { expires: 14, secure: true, sameSite: 'Lax', path: '/' })
})

t.test('storing the tokens writes the auth and refresh cookies', async (t) => {
  setPageUrl('https://sub.example.com/')
  storeSessionTokens({ auth: 'eyJ.auth.token', refresh: 'refresh-token' }, 'sub.example.com', null)
  const cookies = Object.fromEntries(document.cookie.split('; ').map((pair) => pair.split('=')))
  t.equal(cookies.auth, 'eyJ.auth.token')
  t.equal(cookies.refresh, 'refresh-token')
})
