import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { ACCOUNT_FEATURES, type AccountState } from '../../../common/account/account-state.js'
import { SERVER_ONLY_PREFIX, type Catalogue, type MessageKey } from '../../../common/languages/message-catalogue.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startUpstream } from '../../fixtures/servers/edge.js'
import { accountAnswers, answeringByPath } from '../../fixtures/account/account-upstream.js'

/*
 * The account view in real Chromium: axe (WCAG 2.2 A/AA) on every section,
 * in English and Arabic (right to left), at 1280×800 and 375×812, light and
 * dark; and a change made by keyboard alone, the focus following each new
 * step. The built server serves the page in front of a stand-in accounts
 * service that answers the account's state, which the edge renders and
 * embeds; the page's own calls are answered in the browser, so that only the
 * view is under test.
 */

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const
const NOW = Date.now()
const HOUR = 3_600_000
const PASSWORD = 'correct horse battery'

const STATE: AccountState = {
  overview: {
    account: { email: 'noor@example.test', firstName: 'Noor', lastName: null, emailVerified: true, hasPassword: true, google: false },
    secondFactor: { enrolled: true, recoveryCodesLeft: 8, rememberedBrowsers: 1 },
    features: ACCOUNT_FEATURES
  },
  sessions: [
    { id: 's-here', current: true, browser: 'Chrome on Linux', signedInAt: NOW - HOUR, lastUsedAt: NOW, addressRange: '203.0.113.0/24', method: 'password' },
    { id: 's-phone', current: false, browser: 'Safari on iOS', signedInAt: NOW - 30 * HOUR, lastUsedAt: NOW - 2 * HOUR, addressRange: '2001:db8:1::/48', method: 'passkey' }
  ],
  passkeys: [{ id: 'Y3JlZC0x', name: 'Laptop', createdAt: NOW - 48 * HOUR, lastUsedAt: NOW - 30 * HOUR, backedUp: true }],
  activity: [
    { at: NOW - HOUR, kind: 'sign-in', method: 'password', browser: 'Chrome on Linux', addressRange: '203.0.113.0/24' },
    { at: NOW - 3 * HOUR, kind: 'sign-in-failed', method: null, browser: 'Firefox on Windows', addressRange: '198.51.100.0/24' }
  ]
}

/** A shipped catalogue, as the server renderer is given it (common/messages/). */
function catalogue (locale: 'en' | 'ar'): Catalogue {
  const texts = JSON.parse(readFileSync(new URL(`../../../common/messages/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>
  return Object.fromEntries(Object.entries(texts).filter(([key]) => !key.startsWith(SERVER_ONLY_PREFIX))) as Catalogue
}

/**
 * The built server in front of a stand-in accounts service that answers
 * STATE, as the edge fetches it for a signed-in visitor and renders and
 * embeds it (server/edge/account/).
 */
async function startAccountSite (t: Test): Promise<string> {
  const upstream = await startUpstream(t, answeringByPath(() => accountAnswers(STATE)))
  return (await startBuiltServer(t, { RATE_LIMIT_PER_MINUTE: '600', ACCOUNTS_URL: upstream.url, PASSKEYS: 'true', SECOND_FACTOR: 'true' })).base
}

/** The visitor signed in: the page's `auth` cookie, which the edge bears to the service. */
async function signedIn (page: Page, base: string): Promise<void> {
  await page.context().addCookies([{ name: 'auth', value: AUTH, url: base }])
}

/**
 * Until no transition runs: a scheme just switched fades the buttons' colours for a moment, and
 * axe's contrast read mid-fade fails (as test/e2e/account-changes/fresh-proof-accessibility.test.ts waits).
 */
async function settled (page: Page): Promise<void> {
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'))
}

/** An auth token as the page reads it (its `email` and a far `exp`): the page never verifies it. */
const AUTH = `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ email: 'noor@example.test', exp: 4_102_444_800 })).toString('base64url')}.c2ln`

/**
 * Answers the account's calls in the browser, as an accounts service whose
 * changes need a proof until `reauthenticate` has had the right password;
 * returns the paths called, in order.
 */
async function answerAccountCalls (page: Page): Promise<string[]> {
  let proven = false
  const sent: string[] = []
  await page.route((url) => url.pathname.startsWith('/accounts/'), async (route) => {
    const path = new URL(route.request().url()).pathname.slice('/accounts/'.length)
    sent.push(path)
    if (path === 'token/refresh') return await route.fulfill({ status: 200, json: { auth: AUTH } })
    if (path === 'passkeys/list') return await route.fulfill({ status: 200, json: { passkeys: STATE.passkeys, user_id: 'dXNlcg' } })
    if (path === 'reauthenticate') {
      proven = (route.request().postDataJSON() as { password?: string }).password === PASSWORD
      return await route.fulfill({ status: proven ? 200 : 401, json: proven ? { success: true } : { error: 'That password is not right.' } })
    }
    if (!proven) return await route.fulfill({ status: 403, json: { error: 'Confirm it\'s you first.', reason: 'fresh_proof_required', proof_methods: ['password+code', 'sign_in'] } })
    return await route.fulfill({ status: 200, json: { success: true } })
  })
  return sent
}

t.test('axe finds no WCAG 2.2 A/AA violation on the account view, in English and Arabic, at both sizes, light and dark', { skip: browserSkip }, async (t) => {
  const base = await startAccountSite(t)
  for (const [locale, browserLocale] of [['en', 'en-US'], ['ar', 'ar-EG']] as const) {
    const say = (key: MessageKey) => catalogue(locale)[key]
    const { page, problems } = await openPage(t, { ...SIZES.desktop, locale: browserLocale, reducedMotion: 'reduce' })
    await signedIn(page, base)
    await answerAccountCalls(page)
    await page.goto(`${base}/?view=account`)
    await waitForHydration(page)
    t.equal(await page.evaluate(() => document.documentElement.lang), locale, `${locale}: the page speaks it`)
    t.equal(await page.getByRole('region').count(), 7, `${locale}: a region for each section`)
    t.ok(await page.getByRole('heading', { level: 2, name: say('account.delete.heading') }).isVisible())
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport)
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme })
        await settled(page)
        t.same(await wcagViolations(page), [], `${locale}, ${size}, ${colorScheme}`)
      }
    }
    t.same(unexpectedProblems(problems, []), [], `${locale}: no console error (no hydration mismatch), no CSP violation`)
  }
})

t.test('by keyboard alone: a password change asks for the proof in place, with the focus, then says it is done, with the focus', { skip: browserSkip }, async (t) => {
  const base = await startAccountSite(t)
  const say = (key: MessageKey) => catalogue('en')[key]
  const { page } = await openPage(t)
  await signedIn(page, base)
  const sent = await answerAccountCalls(page)
  await page.goto(`${base}/?view=account`)
  await waitForHydration(page)

  // Tab from the top until the new password field has the focus: every control before it is reachable in order.
  const newPassword = page.getByLabel(say('field.newPassword'), { exact: true })
  for (let presses = 0; presses < 40 && !(await newPassword.evaluate((field) => field === document.activeElement)); presses++) await page.keyboard.press('Tab')
  t.ok(await newPassword.evaluate((field) => field === document.activeElement), 'the new password field, reached by Tab')
  await page.keyboard.type('a new long passphrase')
  await page.keyboard.press('Tab') // its reveal button
  await page.keyboard.press('Tab')
  await page.keyboard.type('a new long passphrase')
  await page.keyboard.press('Enter')
  const heading = page.getByRole('heading', { name: say('freshProof.heading') })
  await heading.waitFor()
  t.ok(await heading.evaluate((element) => element === document.activeElement), 'the proof step\'s heading takes the focus')
  await settled(page)
  t.same(await wcagViolations(page), [], 'axe: the proof step in place')
  await page.keyboard.press('Tab')
  await page.keyboard.type(PASSWORD)
  await page.keyboard.press('Tab') // its reveal button
  await page.keyboard.press('Tab')
  await page.keyboard.type('123456')
  await page.keyboard.press('Enter')
  const done = page.getByRole('status').filter({ hasText: say('account.password.changed') })
  await done.waitFor()
  t.ok(await done.evaluate((element) => element === document.activeElement), 'what was done takes the focus')
  t.same(sent.filter((path) => path === 'password/change' || path === 'reauthenticate'), ['password/change', 'reauthenticate', 'password/change'])
})

t.test('by keyboard alone, Tab reaches every section\'s actions in the order they show', { skip: browserSkip }, async (t) => {
  const base = await startAccountSite(t)
  const say = (key: MessageKey) => catalogue('en')[key]
  const { page } = await openPage(t)
  await signedIn(page, base)
  await answerAccountCalls(page)
  await page.goto(`${base}/?view=account`)
  await waitForHydration(page)
  const reached: string[] = []
  for (let presses = 0; presses < 80; presses++) {
    await page.keyboard.press('Tab')
    const name = await page.evaluate(() => {
      const element = document.activeElement
      if (element === null || element === document.body) return null
      return element.getAttribute('aria-label') ?? (element as HTMLInputElement).labels?.[0]?.textContent ?? element.textContent ?? ''
    })
    if (name === null) break
    reached.push(name.trim())
  }
  const wanted = [
    say('account.signOut'), say('account.sessions.end'), say('account.sessions.end'), say('account.sessions.endOthers'),
    say('account.passkeys.rename'), say('account.passkeys.remove'), say('account.passkeys.add'),
    say('account.secondFactor.newCodes'), say('account.secondFactor.forgetBrowsers'), say('account.secondFactor.turnOff'),
    say('field.newPassword'), say('field.confirmPassword'), say('account.password.endOthers'), say('account.password.submit'),
    say('account.email.new'), say('account.email.submit'),
    say('account.delete.confirmLabel').replace('{email}', STATE.overview.account.email), say('account.delete.submit')
  ]
  let from = 0
  const order = wanted.map((name) => {
    const index = reached.indexOf(name, from)
    if (index !== -1) from = index + 1
    return index === -1 ? `${name}: not reached` : name
  })
  t.same(order, wanted, 'each section\'s controls, reached by Tab, in order')
})
