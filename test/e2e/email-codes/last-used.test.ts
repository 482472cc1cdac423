import type { Locator, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../../client/passkeys/passkey-timing.js'
import { browserSkip, launchBrowser, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { emailedCode } from '../../fixtures/email-codes/reference-email-codes.js'
import { methodButton, requestEmailCode, submitEmailCode } from '../../fixtures/email-codes/email-code-page.js'
import { english } from '../../fixtures/languages/messages.js'
import { withoutAutofill, withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { addVirtualAuthenticator } from '../../fixtures/passkeys/virtual-authenticator.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { startOidcProvider } from '../../fixtures/sso/sso-oidc-provider.js'

/*
 * The method a visitor signed in with last, marked on the login view after
 * signing out (in this browser's localStorage only, read after hydration),
 * in real Chromium against the built server with its embedded reference
 * service, passkeys on (the virtual authenticator) and an OIDC identity
 * provider for SSO (sso/sso-oidc-provider.ts). Each sign-in lands on the page
 * itself (no redirect), whose signed-in state has "Sign out". "First" is
 * before every other method's button, the passkey button's included (the
 * design lists the emailed code among the methods after it); the password
 * form keeps its place above them all.
 */

/** Where the page keeps the method, and its values: the design's names. */
const LAST_USED_KEY = 'threshold:last-sign-in-method'
type Method = 'password' | 'passkey' | 'email-code' | 'sso'

/** Each method's control on the login view: the password form's Login button, the others' buttons. */
function methodControls (page: Page): Record<Method, Locator> {
  const loginForm = page.locator('form').filter({ has: page.locator('input[name="form"][value="login"]') })
  return {
    password: methodButton(loginForm, english('login.submit')),
    passkey: methodButton(page, english('login.withPasskey')),
    'email-code': methodButton(page, english('methods.emailCode')),
    sso: methodButton(page, english('methods.loginWithSso'))
  }
}

/**
 * Which method the "Last used" tag belongs to (the control that holds it, or
 * else the nearest before it, as it is read), and the methods in the order
 * the page has them (DOM order, which assistive technology reads).
 */
async function markedMethod (page: Page): Promise<{ marked: Method | 'none', order: Method[] }> {
  const mark = page.getByText(english('lastUsed.mark'), { exact: true })
  await mark.waitFor()
  const present: Array<[Method, Locator]> = []
  for (const [method, control] of Object.entries(methodControls(page)) as Array<[Method, Locator]>) {
    if (await control.count() === 1) present.push([method, control])
  }
  const handles = await Promise.all(present.map(async ([, control]) => await control.elementHandle()))
  const found = await (await mark.elementHandle()).evaluate((markElement, elements) => {
    const before = (a: Node, b: Node): boolean => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0
    const order = elements.map((_, index) => index).sort((a, b) => before(elements[a]!, elements[b]!) ? -1 : 1)
    const holding = elements.findIndex((element) => element.contains(markElement))
    const preceding = order.filter((index) => before(elements[index]!, markElement))
    return { marked: holding !== -1 ? holding : preceding.at(-1) ?? -1, order }
  }, handles)
  return { marked: found.marked === -1 ? 'none' : present[found.marked]![0], order: found.order.map((index) => present[index]![0]) }
}

/** The methods beside the password form (which keeps its place, first), in the page's order. */
/**
 * The methods below the divider, in order: the mark puts its method first among them, while the
 * password form and the passkey button keep their places above (docs/page.md, "The method used last").
 */
const methodsBelowDivider = (order: Method[]): Method[] => order.filter((method) => method !== 'password' && method !== 'passkey')

async function signOut (page: Page): Promise<void> {
  await page.getByRole('button', { name: english('signedIn.signOut'), exact: true }).click()
  await page.getByText(english('signedIn.signedOut')).waitFor()
}

t.test('the method used last, marked on the login view, in real Chromium', { skip: browserSkip }, async (t) => {
  let base = ''
  const oidc = await startOidcProvider(t, { redirectUri: () => `${base}/accounts/auth/sso/oidc/callback` })
  oidc.users.set('sam', { email: 'sam@oidc.example.com', email_verified: true })
  const server = await startBuiltServer(t, {
    RATE_LIMIT_PER_MINUTE: '600',
    SECOND_FACTOR: 'false',
    SSO_CONNECTIONS: JSON.stringify([{ domain: 'oidc.example.com', type: 'oidc', issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret }])
  })
  base = server.base

  /** A page with the authenticator, no autofill request and no conditional create (passkey-page.ts), and no web fonts to fetch. */
  const open = async (t: Test, { declineOffer = true } = {}) => {
    const opened = await openPage(t)
    // The passkey offer after a sign-in, declined earlier in this browser (but where a journey makes its passkey).
    if (declineOffer) await opened.page.addInitScript((key) => { localStorage.setItem(key, String(Date.now() + 86_400_000)) }, PASSKEY_OFFER_DECLINED_KEY)
    await opened.context.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
    const authenticator = await addVirtualAuthenticator(opened.page)
    await withoutAutofill(opened.page)
    await withoutPasskeyUpgrade(opened.page)
    return { ...opened, authenticator }
  }

  /** After the sign-out: the mark on `method`, first among the methods, kept over a reload, never in the server's HTML. */
  const checkMark = async (t: Test, page: Page, method: Method) => {
    t.equal(await page.evaluate((key) => localStorage.getItem(key), LAST_USED_KEY), method, `localStorage says ${method}`)
    const { marked, order } = await markedMethod(page)
    t.equal(marked, method, `"Last used" on ${method} (methods in order: ${order.join(', ')})`)
    if (method === 'password') t.equal(order[0], 'password', 'the password form first')
    else if (method === 'passkey') t.equal(order[1], 'passkey', 'the passkey button in its place, after the password form')
    else t.equal(methodsBelowDivider(order)[0], method, `${method} first among the methods below the divider`)
    const reloaded = await page.reload()
    t.notOk((await reloaded?.text())?.includes(english('lastUsed.mark')), 'the server\'s HTML has no mark')
    await waitForHydration(page)
    t.equal((await markedMethod(page)).marked, method, 'marked again after a reload')
  }

  await t.test('password: marked, first; dismissed, gone for good', async (t) => {
    const email = 'pat@example.test'
    await registerAccount(base, email)
    const { page, problems } = await open(t)
    await page.goto(base)
    await signInOnPage(page, email)
    await signOut(page)
    await checkMark(t, page, 'password')
    await page.getByRole('button', { name: english('lastUsed.forget'), exact: true }).click()
    await page.getByText(english('lastUsed.mark'), { exact: true }).waitFor({ state: 'detached' })
    t.equal(await page.evaluate((key) => localStorage.getItem(key), LAST_USED_KEY), null, 'forgotten in localStorage')
    await page.reload()
    await waitForHydration(page)
    await methodButton(page, english('login.withPasskey')).waitFor()
    t.equal(await page.getByText(english('lastUsed.mark'), { exact: true }).count(), 0, 'no mark after a reload')
    t.equal(await page.getByRole('button', { name: english('lastUsed.forget') }).count(), 0, 'nor its dismiss button')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })

  await t.test('emailed code: marked, first', async (t) => {
    const email = 'eve@example.test'
    const { page, problems } = await open(t)
    await page.goto(base)
    await requestEmailCode(page, email)
    t.equal((await submitEmailCode(page, (await emailedCode(server.dataDir, email)).code)).status, 200, 'the code signs in')
    await page.getByRole('heading', { name: english('signedIn.heading') }).waitFor()
    await signOut(page)
    await checkMark(t, page, 'email-code')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })

  await t.test('passkey: marked, first', async (t) => {
    const email = 'kai@example.test'
    await registerAccount(base, email)
    const { page, authenticator, problems } = await open(t, { declineOffer: false })
    await page.goto(base)
    await signInOnPage(page, email)
    await page.getByRole('button', { name: english('passkey.create'), exact: true }).click()
    await page.getByRole('button', { name: english('passkey.offerContinue'), exact: true }).click()
    await signOut(page)
    t.equal((await authenticator.credentials()).length, 1, 'a passkey made')
    await methodButton(page, english('login.withPasskey')).click()
    await page.getByRole('heading', { name: english('signedIn.heading') }).waitFor()
    await signOut(page)
    await checkMark(t, page, 'passkey')
    t.same(unexpectedProblems(problems, []), [], 'no console error')
  })

  await t.test('SSO: marked, first', async (t) => {
    const { page } = await open(t)
    await page.goto(base)
    await waitForHydration(page)
    await page.getByLabel(english('field.email'), { exact: true }).fill('sam@oidc.example.com')
    await methodButton(page, english('methods.loginWithSso')).click()
    await page.getByRole('dialog', { name: english('sso.title') }).getByRole('button', { name: english('sso.submitLogin'), exact: true }).click()
    await page.waitForURL(`${oidc.issuer}/interaction/**`)
    await page.locator('input[name="login"]').fill('sam')
    await page.locator('input[name="password"]').fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByRole('heading', { name: english('signedIn.heading') }).waitFor()
    await signOut(page)
    await checkMark(t, page, 'sso')
  })

  await t.test('the mark follows hydration: with JavaScript off, nothing is marked', async (t) => {
    const browser = await launchBrowser(t)
    const storageState = { cookies: [], origins: [{ origin: base, localStorage: [{ name: LAST_USED_KEY, value: 'email-code' }] }] }
    // With scripts, the stored method shows (what the same storage does otherwise).
    const withScripts = await browser.newContext({ storageState })
    t.teardown(() => withScripts.close())
    const scripted = await withScripts.newPage()
    await scripted.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
    await scripted.goto(base)
    t.equal((await markedMethod(scripted)).marked, 'email-code', 'with scripts, the stored method is marked')

    const withoutScripts = await browser.newContext({ storageState, javaScriptEnabled: false })
    t.teardown(() => withoutScripts.close())
    const page = await withoutScripts.newPage()
    await page.route('https://fonts.googleapis.com/**', (route) => route.fulfill({ status: 200, contentType: 'text/css', body: '' }))
    const answer = await page.goto(base)
    t.notOk((await answer?.text())?.includes(english('lastUsed.mark')), 'the server\'s HTML has no mark')
    await page.getByRole('button', { name: english('login.submit'), exact: true }).waitFor()
    t.equal(await page.getByText(english('lastUsed.mark'), { exact: true }).count(), 0, 'no mark without scripts')
    t.equal(await page.getByRole('button', { name: english('lastUsed.forget') }).count(), 0, 'nor its dismiss button')
  })
})
