import { mkdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import type { Locale } from '../../../common/languages/message-catalogue.js'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../../client/passkeys/passkey-timing.js'
import { SECOND_FACTOR_OFFER_DECLINED_KEY } from '../../../client/second-factor/not-now.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, launchBrowser, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { pageFitProblems } from '../../fixtures/browsers/layout-fits.js'
import { requestEmailCode, type Texts } from '../../fixtures/email-codes/email-code-page.js'
import { newestResetLink } from '../../fixtures/emails/outbox.js'
import { english, shippedTexts } from '../../fixtures/languages/messages.js'
import { languagesByLength } from '../../fixtures/languages/longest-language.js'
import { unmarkedTexts } from '../../fixtures/languages/pseudo-marks.js'
import { withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { enrolFromOffer } from '../../fixtures/second-factor/second-factor-page.js'
import { startBuiltServer, type BuiltServer } from '../../fixtures/servers/built-server.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/*
 * Every view and step a visitor can reach, in the shipped language with the
 * longest texts and in Hebrew (right to left), at 1280×800 and 375×812, in
 * real Chromium against the built server with its embedded reference service:
 * nothing cut off, nothing overlapping (layout-fits.ts: pageFitProblems), and
 * no WCAG 2.2 A/AA violation (axe). A full-page screenshot of each lands in
 * test-output/every-view-fits/ for a translator to look at. The steps are
 * reached as their own suites reach them (named at each).
 */

const SIZES = [{ width: 1280, height: 800 }, { width: 375, height: 812 }] as const
const SCREENSHOTS = fileURLToPath(new URL('../../../test-output/every-view-fits/', import.meta.url))

/**
 * The pseudo-locale walked last: every view and step, 40 % longer, where a
 * text shown without its marks is not in the catalogue (docs/languages.md).
 */
const PSEUDO = 'en-XA'

/**
 * The reference service's English answers, by what each says before its first
 * value: a backend's words, which the pseudo-locales do not reach.
 */
const BACKEND_OPENINGS = Object.values(JSON.parse(readFileSync(new URL('../../../server/reference/languages/en.json', import.meta.url), 'utf8')) as Record<string, string>)
  .map((text) => text.split('{', 1)[0]!).filter((opening) => opening.length >= 12)
const fromBackend = (text: string): boolean => BACKEND_OPENINGS.some((opening) => text.startsWith(opening))

/** A password that predates its breach (the corpus was down when it was chosen): its login ends at the breached-password notice. */
const BREACHED_PASSWORD = 'a passphrase leaked since it was chosen'

/** The accounts each step signs in with. */
const ACCOUNTS = {
  /** A password alone: its sign-in ends at the passkey offer, then "Confirm it's you". */
  plain: 'plain@example.test',
  /** An authenticator app: its sign-in stops at the code step. */
  withApp: 'app@example.test',
  /** BREACHED_PASSWORD. */
  breached: 'breached@example.test'
} as const

interface Site {
  readonly server: BuiltServer
  /** The setPassword view's path, from a reset link in the outbox. */
  readonly setPasswordPath: string
}

/**
 * The accounts the steps need. The authenticator app is enrolled through the
 * second-factor offer, as fresh-proof-accessibility.test.ts does it.
 */
async function setUpSite (t: Test): Promise<Site> {
  const server = await startBuiltServer(t, { RATE_LIMIT_PER_MINUTE: '600', PSEUDO_LOCALES: 'true' })
  const { base } = server
  // The corpus down while the password is chosen (a new password is let through then: fail open), then holding it:
  // as breached-passwords.test.ts's account whose password was breached since. Its answer is cached by prefix, a failure's is not.
  server.rangeServer!.mode = 'status'
  await registerAccount(base, ACCOUNTS.breached, BREACHED_PASSWORD)
  server.rangeServer!.mode = 'ok'
  server.rangeServer!.breach(BREACHED_PASSWORD)
  await registerAccount(base, ACCOUNTS.plain)
  await registerAccount(base, ACCOUNTS.withApp)

  const browser = await launchBrowser(t)
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.addInitScript((key) => localStorage.setItem(key, String(Date.now() + 86_400_000)), PASSKEY_OFFER_DECLINED_KEY)
  await page.goto(base)
  await signInOnPage(page, ACCOUNTS.withApp)
  await enrolFromOffer(page)
  await page.getByRole('heading', { name: english('signedIn.heading') }).waitFor({ timeout: 10_000 })
  await context.close()

  await fetch(`${base}/accounts/resetPasswordRequest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ACCOUNTS.plain }) })
  const resetLink = new URL(await newestResetLink(server.dataDir))
  return { server, setPasswordPath: resetLink.pathname + resetLink.search }
}

/** Fills the login view's Email and Password in the page's language and presses its Login. */
async function logIn (page: Page, say: Texts, email: string, password: string = GOOD_PASSWORD): Promise<void> {
  await page.getByLabel(say('field.email'), { exact: true }).fill(email)
  await page.getByLabel(say('field.password'), { exact: true }).fill(password)
  await page.getByRole('button', { name: say('login.submit'), exact: true }).click()
}

/**
 * Walks through every view and step in `locale`, calling `look` once each is
 * shown. The signed-out views first; then each sign-in from no cookies.
 */
async function visitEveryView (page: Page, site: Site, locale: string, look: (view: string) => Promise<void>): Promise<void> {
  const { base } = site.server
  const say = shippedTexts(locale as Locale)
  const open = async (query: string) => {
    await page.goto(`${base}/?ui_locales=${locale}${query}`)
    await waitForHydration(page)
  }
  const signedOut = async () => { await page.context().clearCookies() }

  await open('')
  await look('login')
  // As accessibility.test.ts's keyboard login: a refusal in the login form's alert (an unknown address: no account is locked).
  await logIn(page, say, `nobody.${locale}.${page.viewportSize()!.width}@example.test`, 'not the password at all')
  await page.getByRole('alert').filter({ hasText: /\S/ }).waitFor()
  await look('login-wrong-password')
  await open('')
  await page.getByRole('button', { name: say('methods.loginWithSso') }).click()
  await page.getByRole('dialog').waitFor()
  await look('sso-modal')
  await open('')
  await requestEmailCode(page, `code.${locale}.${page.viewportSize()!.width}@example.test`, { say })
  await look('email-code')
  for (const view of ['register', 'resetPassword']) {
    await open(`&view=${view}`)
    await look(view)
  }
  await page.goto(`${base}${site.setPasswordPath}&ui_locales=${locale}`)
  await waitForHydration(page)
  await look('setPassword')

  // As second-factor.test.ts: an account with an authenticator app stops at the code step.
  await open('')
  await logIn(page, say, ACCOUNTS.withApp)
  await page.getByRole('textbox', { name: say('secondFactor.codeLabel'), exact: true }).waitFor()
  await look('second-factor-code')

  // As fresh-proof-accessibility.test.ts: the passkey offer, then "Create a passkey" without the sign-in's proof.
  await signedOut()
  await open('')
  await logIn(page, say, ACCOUNTS.plain)
  await page.getByRole('button', { name: say('passkey.create') }).waitFor({ timeout: 10_000 })
  await look('passkey-offer')
  await page.context().clearCookies({ name: 'threshold_proof' })
  await page.getByRole('button', { name: say('passkey.create') }).click()
  await page.getByRole('heading', { name: say('freshProof.heading') }).waitFor()
  await look('fresh-proof')
  // As signed-in.test.ts: the page opened signed in says as whom; the account view is open to the session.
  await open('')
  await page.getByRole('heading', { name: say('signedIn.heading') }).waitFor({ timeout: 10_000 })
  await look('signed-in')
  await open('&view=account')
  await look('account')

  // The breached password's notice comes last, past the offers: the passkey's declined in this browser, the second factor's seen.
  await signedOut()
  await open('')
  await page.evaluate((key) => localStorage.setItem(key, String(Date.now() + 86_400_000)), PASSKEY_OFFER_DECLINED_KEY)
  await logIn(page, say, ACCOUNTS.breached, BREACHED_PASSWORD)
  await page.getByRole('heading', { name: say('secondFactor.offerHeading') }).waitFor({ timeout: 10_000 })
  await look('second-factor-offer')
  await page.getByRole('button', { name: say('secondFactor.notNow') }).click()
  await page.getByRole('heading', { name: say('breachedPassword.heading') }).waitFor()
  await look('breached-password')
  // Both offers back for the next language in this browser.
  await page.evaluate((keys) => { for (const key of keys) localStorage.removeItem(key) }, [PASSKEY_OFFER_DECLINED_KEY, SECOND_FACTOR_OFFER_DECLINED_KEY])
}

// Three languages' walks through every step, two sizes side by side: about two minutes on a loaded machine.
t.setTimeout(360_000)

t.test('every view and step fits, and passes axe, in the longest language and in Hebrew, at 1280×800 and 375×812', { skip: browserSkip }, async (t) => {
  const started = performance.now()
  const ranking = languagesByLength()
  t.comment(`the page's texts by length: ${ranking.slice(0, 5).map(({ locale, characters }) => `${locale} ${characters}`).join(', ')}`)
  const longest = ranking[0]!.locale
  const locales = [...new Set([longest, 'he']), PSEUDO]

  const site = await setUpSite(t)
  const browser = await launchBrowser(t)
  mkdirSync(SCREENSHOTS, { recursive: true })
  let checked = 0
  let views = 0
  // A context per size, the two walked side by side (each with accounts and addresses of its own, or none they change):
  // the browser and the server share the machine's cores while the test's process waits.
  const pages = await Promise.all(SIZES.map(async (size) => {
    const context = await browser.newContext({ viewport: size, reducedMotion: 'reduce' })
    t.teardown(() => context.close())
    const page = await context.newPage()
    // As the passkey suites: a virtual authenticator, and no conditional create (its 3 s bound would come before the offer).
    await addVirtualAuthenticator(page)
    await withoutPasskeyUpgrade(page)
    return { size, page }
  }))
  for (const locale of locales) {
    await t.test(`${locale} at ${SIZES.map(({ width, height }) => `${width}×${height}`).join(' and ')}`, async (t) => {
      await Promise.all(pages.map(async ({ size, page }) => {
        await visitEveryView(page, site, locale, async (view) => {
          const where = `${locale}, ${size.width} px, ${view}`
          const fit = await pageFitProblems(page)
          checked += fit.checked
          views++
          t.ok(fit.checked > 0, `${where}: ${fit.checked} elements judged`)
          t.same(fit.problems.map((problem) => `${where}: ${problem}`), [], `${where}: nothing cut off or overlapping (${fit.checked} elements)`)
          if (locale === PSEUDO) t.same(await unmarkedTexts(page, fromBackend), [], `${where}: every text is the catalogue's`)
          t.same((await wcagViolations(page)).map((violation) => `${where}: ${violation}`), [], `${where}: no WCAG 2.2 A/AA violation`)
          await page.screenshot({ path: `${SCREENSHOTS}${locale}-${size.width}-${view}.png`, fullPage: true })
        })
        await page.context().clearCookies()
      }))
    })
  }
  t.comment(`${views} views, ${checked} elements judged, in ${((performance.now() - started) / 1000).toFixed(1)} s`)
})
