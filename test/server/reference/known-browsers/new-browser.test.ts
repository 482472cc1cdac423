import t from 'tap'
import { NEW_BROWSER_NOTICE_INTERVAL_MS } from '../../../../server/reference/known-browsers/browser-notices.js'
import { TestBrowser } from '../../../fixtures/sso/sso-browser.js'
import { auditEvents, GOOD_PASSWORD, logCollector, startReference, TEST_PUBLIC_URL } from '../../../fixtures/servers/reference.js'
import { accountsLinkOf, outboxEmails, waitForEmail } from '../../../fixtures/emails/outbox.js'
import { openLink } from '../../../fixtures/http/open-link.js'
import { postJson } from '../../../fixtures/http/post-json.js'

const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0'
const CHROME_ON_ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36'
const SAFARI_ON_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15'
const NEW_PASSWORD = 'a brand new passphrase'

/** Waits a moment for emails that would be sent after the answer, so that their absence means something. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300))

async function registerIn (browser: TestBrowser, base: string, email: string): Promise<void> {
  const answer = await browser.request(`${base}/accounts/register`, { json: { email, password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD } })
  if (answer.status !== 200) throw new Error(`registering failed: ${answer.status}`)
}

/** A password sign-in as the page makes it; `refresh`: the token the edge put in the browser's HttpOnly cookie. */
async function loginIn (browser: TestBrowser, base: string, email: string, password = GOOD_PASSWORD) {
  const response = await browser.request(`${base}/accounts/v2/login`, { json: { email, password } })
  return {
    status: response.status,
    body: await response.json() as Record<string, unknown>,
    setCookie: response.headers.getSetCookie(),
    refresh: browser.cookie(base, 'refresh')?.value
  }
}

t.test('a password sign-in from a new browser emails the owner once; the browser the account was made in stays quiet', async (t) => {
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { logStream: logs.stream })
  const home = new TestBrowser(SAFARI_ON_MAC)
  await registerIn(home, base, 'Owner@Example.com')
  t.equal((await loginIn(home, base, 'owner@example.com')).status, 200)
  await settle()
  t.same(await outboxEmails(dataDir, 'newBrowser'), [], 'the browser that registered is known')

  const elsewhere = new TestBrowser(FIREFOX_ON_WINDOWS)
  const signIn = await loginIn(elsewhere, base, 'owner@example.com')
  t.equal(signIn.status, 200)
  // Through the edge on http://127.0.0.1, a loopback page over plain http: without Secure (docs/security.md, "Plain http on loopback"; over https it keeps it: test/server/edge/http/loopback-http.test.ts).
  t.match(signIn.setCookie.find((cookie) => cookie.startsWith('threshold_browser=')), /^threshold_browser=[\w-]{22}\.[\w-]{22}; Max-Age=34560000; Path=\/accounts; HttpOnly; SameSite=Lax$/)
  const email = await waitForEmail(dataDir, 1, 'newBrowser')
  t.match(email.raw, /^To: Owner@example\.com$/m)
  t.match(email.raw, /^Subject: New sign-in to your Threshold account$/m)
  t.match(email.decoded, /When: [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d\s[AP]M UTC\. Browser: Firefox on Windows\. Network address: 127\.0\.0\.1\./)
  const { link } = accountsLinkOf(email, 'endSessions')
  t.ok(link.startsWith(`${TEST_PUBLIC_URL}/accounts/endSessions?token=`))
  t.match(email.decoded, /The link works once, within 7 days\./)

  t.equal((await loginIn(elsewhere, base, 'owner@example.com')).status, 200)
  t.equal((await loginIn(home, base, 'owner@example.com')).status, 200)
  await settle()
  t.equal((await outboxEmails(dataDir, 'newBrowser')).length, 1, 'never twice for the same browser')
  t.ok(auditEvents(logs).includes('browser.notice-sent'))
})

t.test('a burst of sign-ins from a hundred new browsers sends one email, not a hundred', async (t) => {
  let offset = 0
  const { base, dataDir } = await startReference(t, { now: () => Date.now() + offset })
  await registerIn(new TestBrowser(), base, 'burst@example.com')
  const browsers = Array.from({ length: 100 }, () => new TestBrowser(CHROME_ON_ANDROID))
  const answers = await Promise.all(browsers.map((browser) => loginIn(browser, base, 'burst@example.com')))
  // A machine busy with other work makes the hash gate shed some of a hundred at once (503, busy: server/reference/passwords/hash-gate.ts);
  // what is under test is how many emails the ones let through send.
  const statuses = answers.map((answer) => answer.status)
  t.ok(statuses.every((status) => status === 200 || status === 503), `each signed in or was shed as busy: ${[...new Set(statuses)].join(', ')}`)
  t.ok(statuses.filter((status) => status === 200).length >= 2, `at least two new browsers signed in (${statuses.filter((status) => status === 200).length})`)
  await waitForEmail(dataDir, 1, 'newBrowser')
  await settle()
  t.equal((await outboxEmails(dataDir, 'newBrowser')).length, 1)
  t.match((await outboxEmails(dataDir, 'newBrowser'))[0]!.decoded, /Browser: Chrome on Android\./)

  offset += NEW_BROWSER_NOTICE_INTERVAL_MS + 1000
  await loginIn(new TestBrowser(), base, 'burst@example.com')
  await waitForEmail(dataDir, 2, 'newBrowser')
  t.match((await outboxEmails(dataDir, 'newBrowser'))[1]!.decoded, /Browser: an unknown browser\./, 'a quarter of an hour later, the next new browser is news again')
})

t.test('a tampered or forged browser cookie counts as a new browser and is replaced; the sign-in is not refused', async (t) => {
  const { base, dataDir } = await startReference(t)
  const home = new TestBrowser()
  await registerIn(home, base, 'tamper@example.com')
  const issued = home.cookie(base, 'threshold_browser')!.value
  const [id, mac] = issued.split('.')
  const forgeries = [
    `${id}.${'A'.repeat(22)}`, // another signature
    `${'B'.repeat(22)}.${mac}`, // another id under the real signature
    `${id}`, `${issued}.extra`, '', '%00', `${id}.${mac}`.repeat(50)
  ]
  for (const forged of forgeries) {
    const response = await fetch(`${base}/accounts/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, 'sec-fetch-site': 'same-origin', cookie: `threshold_browser=${forged}` },
      body: JSON.stringify({ email: 'tamper@example.com', password: GOOD_PASSWORD })
    })
    t.equal(response.status, 200, `signed in with ${JSON.stringify(forged.slice(0, 30))}`)
    const replaced = response.headers.getSetCookie().find((cookie) => cookie.startsWith('threshold_browser=')) ?? ''
    t.notOk(replaced.startsWith(`threshold_browser=${forged};`), 'a fresh cookie replaces it')
    t.match(replaced, /^threshold_browser=[\w-]{22}\.[\w-]{22};/)
  }
  t.equal((await loginIn(home, base, 'tamper@example.com')).status, 200)
  await waitForEmail(dataDir, 1, 'newBrowser')
  await settle()
  t.equal((await outboxEmails(dataDir, 'newBrowser')).length, 1, 'one notice for the forged ones (then the slot holds); the real browser stays known')
})

t.test('"this was not me" asks for a new password, and saving it ends every session of the account', async (t) => {
  const logs = logCollector()
  const { base, dataDir } = await startReference(t, { logStream: logs.stream })
  const owner = new TestBrowser()
  await registerIn(owner, base, 'victim@example.com')
  const ownerSession = await loginIn(owner, base, 'victim@example.com')
  const intruder = new TestBrowser(FIREFOX_ON_WINDOWS)
  const intruderSession = await loginIn(intruder, base, 'victim@example.com')
  const { link, token } = accountsLinkOf(await waitForEmail(dataDir, 1, 'newBrowser'), 'endSessions')

  const opened = await openLink(link.replace(TEST_PUBLIC_URL, base))
  t.equal(opened.status, 303)
  const landing = new URL(opened.location!)
  t.equal(landing.origin + landing.pathname, `${TEST_PUBLIC_URL}/`)
  t.equal(landing.searchParams.get('view'), 'setPassword')
  t.equal(landing.searchParams.get('notice'), 'end-sessions')
  t.equal(landing.searchParams.get('token'), token, 'the link\'s own token, not used yet')
  // A mail scanner opens links too: the sessions live until the owner saves a new password.
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: ownerSession.refresh })).status, 200, 'opening the link ends nothing')

  const intruderNext = await postJson(base, '/accounts/token/refresh', { refresh: intruderSession.refresh })
  t.equal(intruderNext.status, 200, 'the intruder\'s session too, until then')
  const changed = await postJson(base, '/accounts/resetPassword', { token, password: NEW_PASSWORD, confirm_password: NEW_PASSWORD })
  t.equal(changed.status, 200, 'the link\'s token sets a new password')
  const refreshed = await postJson(base, '/accounts/token/refresh', { refresh: String(intruderNext.body.refresh) })
  t.same([refreshed.status, refreshed.body], [401, { error: 'Your session has ended. Please log in again.' }], 'the intruder\'s session has ended')
  t.equal((await loginIn(intruder, base, 'victim@example.com')).status, 401, 'the old password no longer works')
  t.equal((await loginIn(owner, base, 'victim@example.com', NEW_PASSWORD)).status, 200)

  const reused = await openLink(link.replace(TEST_PUBLIC_URL, base))
  t.same([reused.status, reused.location], [303, `${TEST_PUBLIC_URL}/?view=resetPassword&notice=end-sessions-link-invalid&ui_locales=en`], 'the link works once')
  t.ok(logs.lines.some((line) => line.audit === 'reset.completed' && line.via === 'end-sessions'))
  t.notOk(logs.text().includes(token), 'no token is logged')
})

t.test('forged, malformed, expired and foreign "was this you" links are refused and end nothing', async (t) => {
  let offset = 0
  const { base, dataDir } = await startReference(t, { now: () => Date.now() + offset })
  const owner = new TestBrowser()
  await registerIn(owner, base, 'careful@example.com')
  const session = await loginIn(new TestBrowser(), base, 'careful@example.com')
  const { token } = accountsLinkOf(await waitForEmail(dataDir, 1, 'newBrowser'), 'endSessions')
  const verifyToken = accountsLinkOf(await waitForEmail(dataDir, 1, 'verify'), 'verifyEmail').token
  const REFUSED = `${TEST_PUBLIC_URL}/?view=resetPassword&notice=end-sessions-link-invalid&ui_locales=en`

  for (const query of [`token=${'A'.repeat(43)}`, 'token=', '', `token=${token}x`, 'token=<script>', `token=${verifyToken}`]) {
    t.equal((await openLink(`${base}/accounts/endSessions?${query}`)).location, REFUSED, `?${query.slice(0, 30)}`)
  }
  t.equal((await openLink(`${base}/accounts/verifyEmail?token=${token}`)).location, `${TEST_PUBLIC_URL}/?view=login&notice=verify-link-invalid&ui_locales=en`,
    'a "was this you" token does not verify an address')
  offset = 7 * 24 * 3600_000 + 1000
  t.equal((await openLink(`${base}/accounts/endSessions?token=${token}`)).location, REFUSED, 'expired after 7 days')
  offset = 0
  t.equal((await postJson(base, '/accounts/token/refresh', { refresh: session.refresh })).status, 200, 'the session still works')
})
