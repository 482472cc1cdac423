import t from 'tap'
import { safeRedirectTarget, type PageLocation } from '../../../common/page/redirect-target.js'

const page: PageLocation = { origin: 'https://signin.example.com', hash: '' }
/** As the edge decides for signin.example.com (test/server/edge/sessions/cookie-domain.test.ts). */
const rules = { cookieDomain: 'example.com', allowedHosts: ['partner.test', '*.trusted.test'] }
const FALLBACK = 'https://signin.example.com/'

/** A printable label for a test value (raw line separators would break TAP's output). */
const label = (value: string): string => JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).slice(0, 80)

t.test('safe targets are followed', async (t) => {
  const allowed: Array<[string, string]> = [
    ['/dashboard?tab=1', 'https://signin.example.com/dashboard?tab=1'],
    ['dashboard', 'https://signin.example.com/dashboard'],
    ['https://signin.example.com/app', 'https://signin.example.com/app'],
    ['https://example.com/home', 'https://example.com/home'],
    ['https://app.example.com/', 'https://app.example.com/'],
    ['https://deep.app.example.com:8443/x', 'https://deep.app.example.com:8443/x'],
    ['https://partner.test/welcome', 'https://partner.test/welcome'],
    ['https://eu.trusted.test/', 'https://eu.trusted.test/'],
    ['https://APP.Example.COM/Case', 'https://app.example.com/Case']
  ]
  for (const [target, expected] of allowed) {
    t.equal(safeRedirectTarget(target, page, rules), expected, target)
  }
})

t.test('without a redirect the site origin is the target', async (t) => {
  t.equal(safeRedirectTarget(null, page, rules), FALLBACK)
  t.equal(safeRedirectTarget('', page, rules), FALLBACK)
})

t.test('hostile targets fall back to the site origin', async (t) => {
  const hostile = [
    'javascript:alert(document.cookie)',
    'JaVaScRiPt:alert(1)',
    ' javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    '//evil.test/phish',
    '///evil.test/phish',
    '/\\evil.test/phish',
    '\\\\evil.test\\phish',
    'https://evil.test',
    'http://app.example.com/',
    'https://signin.example.com@evil.test/',
    'https://user:pass@app.example.com/',
    'https://example.com.evil.test/',
    'https://evilexample.com/',
    'https://example.com%2eevil.test/',
    'https://evil.test#@app.example.com',
    'https://evil.test?@app.example.com',
    'https://app.example.com\t.evil.test/',
    'https://app.example.com\n/',
    'https://app.exa\u0000mple.com/',
    'https://evil.test\u2028/',
    'https://\u202eevil.test/',
    'https://trusted.test/',
    'https://partner.test.evil.test/',
    'ftp://app.example.com/',
    'https://[::1]:9999/',
    `https://app.example.com/${'a'.repeat(3000)}`
  ]
  t.ok(hostile.length >= 20)
  for (const target of hostile) {
    t.equal(safeRedirectTarget(target, page, rules), FALLBACK, label(target))
  }
})

t.test('a same-scheme "https:evil.test" is a path on this origin, as browsers resolve it', async (t) => {
  t.equal(safeRedirectTarget('https:evil.test', page, rules), 'https://signin.example.com/evil.test')
})

t.test('the page hash is kept', async (t) => {
  const withHash = { ...page, hash: '#/projects/42' }
  t.equal(safeRedirectTarget('/app', withHash, rules), 'https://signin.example.com/app#/projects/42')
  t.equal(safeRedirectTarget('https://app.example.com/x#own', withHash, rules), 'https://app.example.com/x#/projects/42')
  t.equal(safeRedirectTarget(null, withHash, rules), 'https://signin.example.com/#/projects/42')
  t.equal(safeRedirectTarget('/app#own', page, rules), 'https://signin.example.com/app#own', 'without a page hash the target keeps its own')
})

t.test('the cookie domain the edge gives is the family of allowed hosts; the page derives none itself', async (t) => {
  const configured = { cookieDomain: 'corp.test', allowedHosts: [] }
  t.equal(safeRedirectTarget('https://wiki.corp.test/', page, configured), 'https://wiki.corp.test/')
  t.equal(safeRedirectTarget('https://app.example.com/', page, configured), FALLBACK, 'the page\'s parent is not implied')
})

t.test('on demo.herokuapp.com, whose own name is its cookie domain, another Heroku app is refused', async (t) => {
  const herokuApp: PageLocation = { origin: 'https://demo.herokuapp.com', hash: '' }
  const decided = { cookieDomain: 'demo.herokuapp.com', allowedHosts: [] }
  t.equal(safeRedirectTarget('https://api.demo.herokuapp.com/', herokuApp, decided), 'https://api.demo.herokuapp.com/')
  t.equal(safeRedirectTarget('https://evil-app.herokuapp.com/', herokuApp, decided), 'https://demo.herokuapp.com/')
  t.equal(safeRedirectTarget('https://herokuapp.com/', herokuApp, decided), 'https://demo.herokuapp.com/')
})

t.test('host-only cookies (no cookie domain) allow only this origin and the listed hosts', async (t) => {
  const ip: PageLocation = { origin: 'https://203.0.113.7', hash: '' }
  const hostOnly = { cookieDomain: null, allowedHosts: ['partner.test'] }
  t.equal(safeRedirectTarget('https://203.0.113.7/app', ip, hostOnly), 'https://203.0.113.7/app')
  t.equal(safeRedirectTarget('https://partner.test/', ip, hostOnly), 'https://partner.test/')
  t.equal(safeRedirectTarget('https://evil.test/', ip, hostOnly), 'https://203.0.113.7/')
})

t.test('plain http is allowed only for loopback hosts', async (t) => {
  const local: PageLocation = { origin: 'http://localhost:8080', hash: '' }
  t.equal(safeRedirectTarget('/app', local, { cookieDomain: null, allowedHosts: [] }), 'http://localhost:8080/app')
  t.equal(safeRedirectTarget('http://127.0.0.1:3000/', local, { cookieDomain: null, allowedHosts: ['127.0.0.1'] }), 'http://127.0.0.1:3000/')
  t.equal(safeRedirectTarget('http://example.com/', local, { cookieDomain: null, allowedHosts: ['example.com'] }), 'http://localhost:8080/')
  t.equal(safeRedirectTarget('http://localhost:9999/', local, { cookieDomain: null, allowedHosts: [] }), 'http://localhost:8080/', 'another port is another origin')
})
