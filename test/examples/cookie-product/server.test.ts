import { generateKeyPair, SignJWT } from 'jose'
import t, { type Test } from 'tap'
import { optionsFromEnv } from '../../../examples/cookie-product/server.js'
import { Clock } from '../../fixtures/account-changes/account-changes.js'
import { runExampleToExit, startExampleProcess } from '../../fixtures/examples/example-process.js'
import { freeLoopbackPort } from '../../fixtures/servers/local-services.js'
import { GOOD_PASSWORD, startReference } from '../../fixtures/servers/reference.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { GRACE_SECONDS, refresh } from '../../fixtures/sessions/token-rotation.js'
import { TestBrowser } from '../../fixtures/sso/sso-browser.js'
import { postJson } from '../../fixtures/http/post-json.js'

/*
 * The cookie-mode example product (examples/cookie-product/) as its README
 * runs it, a real process beside the real edge and embedded service, whose
 * PUBLIC_URL is the edge's own address: a visitor who signed in through the
 * page's JSON calls gets the product's page, an expired auth token is
 * refreshed on the product's server and written back as the page sets it,
 * and signing out goes through the page. The page and the product share
 * 127.0.0.1 (host-only cookies, which browsers send to every port), and the
 * page may send visitors back to the product's port (REDIRECT_ALLOWED_HOSTS).
 */

const LISTENING = /cookie product on (http:\/\/[\d.]+:\d+)/

/** The page (the edge and the embedded service) on its PUBLIC_URL, its clock `minutesAgo` behind, and the product beside it. */
async function pageAndProduct (t: Test, minutesAgo = 0) {
  const clock = new Clock(minutesAgo / (24 * 60))
  const port = await freeLoopbackPort()
  const page = `http://127.0.0.1:${port}`
  await startReference(t, { now: clock.now, env: { PUBLIC_URL: page }, edgeEnv: { REDIRECT_ALLOWED_HOSTS: '127.0.0.1' }, edgePort: port })
  const product = await startExampleProcess(t, process.execPath, ['examples/cookie-product/server.ts'], { THRESHOLD_URL: page, PORT: '0' }, LISTENING)
  return { clock, page, product: product.base }
}

/** A visitor signed in through the page's own JSON call: the edge sets `refresh` (HttpOnly), the page's script writes `auth`. */
async function signInOnPage (t: Test, page: string, email: string): Promise<{ browser: TestBrowser, refreshSetCookie: string }> {
  await registerAccount(page, email)
  const browser = new TestBrowser(undefined, undefined, true)
  const answer = await browser.request(`${page}/accounts/v2/login`, { json: { email, password: GOOD_PASSWORD } })
  const body = await answer.json() as { auth?: string, refresh?: string }
  t.equal(answer.status, 200, 'signed in')
  t.equal(body.refresh, undefined, 'no script on the page sees the refresh token')
  browser.write(page, `auth=${body.auth!}; Path=/; SameSite=Lax`)
  const refreshSetCookie = answer.headers.getSetCookie().find((line) => line.startsWith('refresh='))!
  return { browser, refreshSetCookie }
}

/** A Set-Cookie line's attributes but its value and lifetime, in order. */
const attributesOf = (line: string): string[] => line.split(';').slice(1).map((part) => part.trim()).filter((part) => !/^(expires|max-age)=/i.test(part))

const cookieLines = (response: Response, name: string): string[] => response.headers.getSetCookie().filter((line) => line.startsWith(`${name}=`))

t.test('a visitor signed in on the page gets the product\'s page, with a sign-out link through the page', async (t) => {
  const { page, product } = await pageAndProduct(t)
  const { browser } = await signInOnPage(t, page, 'reader@example.com')
  const answer = await browser.request(`${product}/`)
  const html = await answer.text()
  t.equal(answer.status, 200)
  t.match(html, 'Signed in as <strong>reader@example.com</strong>')
  t.match(html, `href="${page}/?view=logout&#38;redirect=${encodeURIComponent(`${product}/signed-out`)}"`)
  t.same(answer.headers.getSetCookie(), [], 'a valid auth token needs no refresh')
  t.equal(answer.headers.get('cache-control'), 'no-store', 'a signed-in page is never cached')
})

t.test('a signed-out visitor is sent to the page with a redirect back to where they were', async (t) => {
  const { page, product } = await pageAndProduct(t)
  const answer = await new TestBrowser(undefined, undefined, true).request(`${product}/?tab=billing`)
  t.equal(answer.status, 303)
  t.equal(answer.headers.get('location'), `${page}/?redirect=${encodeURIComponent(`${product}/?tab=billing`)}`)
})

t.test('an expired auth token is refreshed on the product\'s server, and both cookies are written back as the page sets them', async (t) => {
  const { clock, page, product } = await pageAndProduct(t, 20)
  const { browser, refreshSetCookie } = await signInOnPage(t, page, 'returning@example.com')
  const expiredAuth = browser.cookie(page, 'auth')!.value
  const oldRefresh = browser.cookie(page, 'refresh')!.value
  clock.value = Date.now()

  const answer = await browser.request(`${product}/`)
  t.equal(answer.status, 200)
  t.match(await answer.text(), 'Signed in as <strong>returning@example.com</strong>')
  const [auth] = cookieLines(answer, 'auth')
  const [refreshLine] = cookieLines(answer, 'refresh')
  t.ok(auth !== undefined && refreshLine !== undefined, 'both cookies are written back')
  t.same(attributesOf(refreshLine!), attributesOf(refreshSetCookie), 'refresh: the attributes the edge gave it (Path, Domain, Secure, HttpOnly, SameSite)')
  t.same(attributesOf(auth!), attributesOf(refreshSetCookie).filter((part) => part !== 'HttpOnly'), 'auth: the same, readable as the page writes it')
  t.match(refreshLine!, /Expires=/, 'for the cookies\' 14 days')
  t.not(browser.cookie(page, 'auth')!.value, expiredAuth, 'a new auth token')
  t.not(browser.cookie(page, 'refresh')!.value, oldRefresh, 'and the refresh token rotated')

  const next = await browser.request(`${product}/`)
  t.equal(next.status, 200)
  t.same(next.headers.getSetCookie(), [], 'the new auth token serves the next request as it is')
  clock.passSeconds(GRACE_SECONDS + 1)
  t.equal((await refresh(page, browser.cookie(page, 'refresh')!.value)).status, 200, 'the refresh token written back is the session\'s live one')
})

t.test('parallel requests with one expired auth token all get the page, and the session survives them', async (t) => {
  const { clock, page, product } = await pageAndProduct(t, 20)
  const { browser } = await signInOnPage(t, page, 'busy@example.com')
  clock.value = Date.now()
  const cookie = browser.cookieHeader(`${product}/`)
  const answers = await Promise.all([1, 2, 3, 4].map(() => fetch(`${product}/`, { headers: { cookie }, redirect: 'manual' })))
  t.same(answers.map((answer) => answer.status), [200, 200, 200, 200])
  const refreshTokens = answers.map((answer) => /^refresh=([^;]+)/.exec(cookieLines(answer, 'refresh')[0] ?? '')?.[1])
  t.ok(refreshTokens.every((token) => token !== undefined), 'each answer carries a working pair')
  clock.passSeconds(GRACE_SECONDS + 1)
  t.equal((await refresh(page, refreshTokens.at(-1)!)).status, 200, 'whichever the browser kept, the session lives on')
})

t.test('signing out goes through the page: both cookies cleared, the product signs the visitor out, the old refresh token is refused', async (t) => {
  const { page, product } = await pageAndProduct(t)
  const { browser } = await signInOnPage(t, page, 'leaving@example.com')
  const stolenRefresh = browser.cookie(page, 'refresh')!.value
  const authBefore = browser.cookie(page, 'auth')!.value
  t.equal((await postJson(page, '/accounts/account/overview', {}, { authorization: `Bearer ${authBefore}` })).status, 200, 'the live-session check passes while the session lives')
  const signOutLink = /href="([^"]*view=logout[^"]*)"/.exec(await (await browser.request(`${product}/`)).text())![1]!.replaceAll('&#38;', '&')
  const confirm = await browser.request(signOutLink)
  t.equal(confirm.status, 200, 'the page asks first: nothing ends on a GET')
  const action = /<form method="post" action="([^"]+)"/.exec(await confirm.text())![1]!.replaceAll('&#38;', '&')

  const signedOut = await browser.request(new URL(action, page).href, { form: { form: 'logout' } })
  t.equal(signedOut.status, 303)
  t.equal(signedOut.headers.get('location'), `${product}/signed-out`)
  t.equal(browser.cookie(page, 'auth'), undefined, 'the auth cookie is gone')
  t.equal(browser.cookie(page, 'refresh'), undefined, 'the refresh cookie is gone')
  const landing = await browser.request(`${product}/signed-out`)
  t.match(await landing.text(), 'You\'re signed out')
  t.equal((await browser.request(`${product}/`)).status, 303, 'the product sends the visitor to sign in again')

  // Someone who kept the refresh cookie gets nothing from the product, which clears what it holds.
  const keeper = new TestBrowser(undefined, undefined, true)
  keeper.write(page, `refresh=${stolenRefresh}; Path=/`)
  const refused = await keeper.request(`${product}/`)
  t.equal(refused.status, 303)
  t.match(refused.headers.get('location') ?? '', `${page}/?redirect=`)
  t.equal(keeper.cookie(page, 'refresh'), undefined, 'the ended session\'s cookie is cleared')

  // What docs/products.md warns of: the auth token itself stays valid until its 15 minutes end.
  const late = new TestBrowser(undefined, undefined, true)
  late.write(page, `auth=${authBefore}; Path=/`)
  t.equal((await late.request(`${product}/`)).status, 200, 'an ended session\'s auth token still verifies until it expires')
  // And what the guide offers where that matters: the page's live-session check refuses it at once.
  const live = await postJson(page, '/accounts/account/overview', {}, { authorization: `Bearer ${authBefore}` })
  t.same({ status: live.status, reason: live.body.reason }, { status: 401, reason: 'session_ended' }, 'the session it names has ended')
})

t.test('an auth cookie not signed by the page is refused, whatever it claims', async (t) => {
  const { page, product } = await pageAndProduct(t)
  const { browser } = await signInOnPage(t, page, 'target@example.com')
  const real = browser.cookie(page, 'auth')!.value
  const header = JSON.parse(Buffer.from(real.split('.')[0]!, 'base64url').toString()) as { kid: string }
  const claims = JSON.parse(Buffer.from(real.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>
  const { privateKey } = await generateKeyPair('EdDSA')
  const forged = await new SignJWT({ ...claims, email: 'attacker@example.com' }).setProtectedHeader({ alg: 'EdDSA', kid: header.kid, typ: 'at+jwt' }).sign(privateKey)
  const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${real.split('.')[1]!}.`
  for (const token of [forged, unsigned]) {
    const attacker = new TestBrowser(undefined, undefined, true)
    attacker.write(page, `auth=${token}; Path=/`)
    const answer = await attacker.request(`${product}/`)
    t.equal(answer.status, 303, 'sent to sign in')
    t.notMatch(await answer.text(), 'attacker@example.com')
  }
})

t.test('the example stops at its start with a message naming a missing or bad THRESHOLD_URL', async (t) => {
  t.throws(() => optionsFromEnv({}), /THRESHOLD_URL must be set/)
  t.throws(() => optionsFromEnv({ THRESHOLD_URL: 'https://signin.example.com/path' }), /THRESHOLD_URL must be an origin/)
  const stopped = await runExampleToExit(process.execPath, ['examples/cookie-product/server.ts'], { THRESHOLD_URL: 'signin.example.com' })
  t.not(stopped.code, 0)
  t.match(stopped.output, 'THRESHOLD_URL must be an origin')
})
