import t from 'tap'
import { KNOWN_BROWSER_COOKIE, KNOWN_BROWSER_DAYS, KNOWN_BROWSER_MAX_ACCOUNTS, knownBrowsers } from '../../../../server/edge/known-browsers/known-browser.js'
import { accountKeyFor } from '../../../../server/edge/challenge/risk.js'

const KEY = Buffer.alloc(32, 3)
const PSEUDONYM = Buffer.alloc(32, 4)
const DAY_MS = 24 * 60 * 60 * 1000
const ada = accountKeyFor(PSEUDONYM, 'ada@example.com')
const bob = accountKeyFor(PSEUDONYM, 'bob@example.com')

/** The Cookie header a browser sends back after a Set-Cookie value. */
const sentBack = (setCookie: string): string => setCookie.slice(0, setCookie.indexOf(';'))

function withClock () {
  const clock = { now: 1_700_000_000_000 }
  return { clock, browsers: knownBrowsers(KEY, () => clock.now) }
}

t.test('a browser that signed in to an account is known to it, and to no other; the cookie is HttpOnly, Secure, SameSite=Strict, host-only and sent to the whole origin (the page\'s login call and its no-script forms)', async (t) => {
  const { browsers } = withClock()
  const setCookie = browsers.remember(undefined, ada)
  t.match(setCookie, new RegExp(`^${KNOWN_BROWSER_COOKIE}=\\d+:[\\w-]{22}; Max-Age=${KNOWN_BROWSER_DAYS * 86400}; Path=/; HttpOnly; Secure; SameSite=Strict$`))
  t.notMatch(setCookie, /ada|example/, 'nothing in it names the account')
  const cookie = `theme=dark; ${sentBack(setCookie)}; other=1`
  t.ok(browsers.knows(cookie, ada))
  t.notOk(browsers.knows(cookie, bob), 'another account')
  t.notOk(browsers.knows(undefined, ada), 'no cookie')
  t.notOk(knownBrowsers(Buffer.alloc(32, 9)).knows(cookie, ada), 'another EDGE_SECRET')
})

t.test('attack: a forged, altered or stretched cookie is not known', async (t) => {
  const { browsers } = withClock()
  const value = sentBack(browsers.remember(undefined, ada)).slice(KNOWN_BROWSER_COOKIE.length + 1)
  const [expires, tag] = value.split(':') as [string, string]
  const forged: Array<[string, string]> = [
    ['a made-up tag', `${expires}:${'A'.repeat(22)}`],
    ['the expiry pushed later', `${Number(expires) + 86400}:${tag}`],
    ['a tag cut short', `${expires}:${tag.slice(0, 21)}`],
    ['no expiry', tag],
    ['a value past the longest the edge writes', `${value}.${'1'.repeat(300)}`]
  ]
  for (const [what, cookie] of forged) t.notOk(browsers.knows(`${KNOWN_BROWSER_COOKIE}=${cookie}`, ada), what)
})

t.test('a browser is known for its days, each sign-in starting them again; it keeps its newest accounts, each once', async (t) => {
  const { clock, browsers } = withClock()
  let cookie = sentBack(browsers.remember(undefined, ada))
  clock.now += (KNOWN_BROWSER_DAYS - 1) * DAY_MS
  t.ok(browsers.knows(cookie, ada), 'a day before the end')
  cookie = sentBack(browsers.remember(cookie, ada))
  t.equal(cookie.split('.').length, 1, 'signing in again replaces the account\'s entry')
  clock.now += 2 * DAY_MS
  t.ok(browsers.knows(cookie, ada), 'the second sign-in started the days again')
  clock.now += KNOWN_BROWSER_DAYS * DAY_MS
  t.notOk(browsers.knows(cookie, ada), 'past them, forgotten')

  const accounts = Array.from({ length: KNOWN_BROWSER_MAX_ACCOUNTS + 1 }, (_, i) => accountKeyFor(PSEUDONYM, `member${i}@example.com`))
  let shared: string | undefined
  for (const account of accounts) shared = sentBack(browsers.remember(shared, account))
  t.notOk(browsers.knows(shared, accounts[0]!), 'the oldest is forgotten past the most')
  for (const account of accounts.slice(1)) t.ok(browsers.knows(shared, account))
})
