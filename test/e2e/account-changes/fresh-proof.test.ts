import type { BrowserContext, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../../client/passkeys/passkey-timing.js'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { english } from '../../fixtures/languages/messages.js'
import { withoutAutofill, withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { authenticatorCode, enrolFromOffer, verifyRememberingBrowser } from '../../fixtures/second-factor/second-factor-page.js'
import { addVirtualAuthenticator, type VirtualCredential } from '../../fixtures/passkeys/virtual-authenticator.js'

/*
 * "Confirm it's you" in real Chromium against the built server with its
 * embedded reference service (passkeys and the second factor on), with
 * Chromium's virtual authenticator. A sign-in leaves a fresh proof in the
 * browser (the HttpOnly `threshold_proof` cookie, docs/account-changes.md);
 * a journey that deletes it stands for a browser whose proof has expired, or
 * for a stolen token used elsewhere. The upgrade right after a password
 * sign-in, which needs no extra step, is passkeys.test.ts's first journey.
 * axe on the step is fresh-proof-accessibility.test.ts's.
 */

const PROOF_COOKIE = 'threshold_proof'

/** Whether the browser holds a fresh proof for the page. */
async function holdsProof (context: BrowserContext, base: string): Promise<boolean> {
  return (await context.cookies(`${base}/accounts/`)).some((cookie) => cookie.name === PROOF_COOKIE)
}

/** Waits for "Confirm it's you" and says whether its heading has the focus. */
async function confirmStepFocused (page: Page): Promise<boolean> {
  const heading = page.getByRole('heading', { name: english('freshProof.heading') })
  await heading.waitFor()
  return await page.waitForFunction((element) => element === document.activeElement, await heading.elementHandle(), { timeout: 5000 })
    .then(() => true, () => false)
}

t.test('a change after the sign-in\'s proof is gone asks for a proof first, then goes on by itself', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Every journey comes from 127.0.0.1: the per-address limit is raised so that the suite is not its own flood.
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '600' })
  const { base } = server
  const target = `${base}/?redirect=${encodeURIComponent(`${product}/home`)}`
  const openWithAuthenticator = async (t: Test, credentials: readonly VirtualCredential[] = []) => {
    const opened = await openPage(t)
    const authenticator = await addVirtualAuthenticator(opened.page)
    await withoutPasskeyUpgrade(opened.page)
    for (const credential of credentials) await authenticator.addCredential(credential)
    return { ...opened, authenticator }
  }
  /** Lin's passkey, as the first journey's authenticator holds it. */
  let linsPasskey: VirtualCredential | undefined

  await t.test('adding a passkey later: the offer → "Create a passkey" → Confirm it\'s you → the password → the passkey, with no further click', async (t) => {
    await registerAccount(base, 'lin@example.test')
    const { page, context, authenticator, problems } = await openWithAuthenticator(t)
    await page.goto(target)
    await signInOnPage(page, 'lin@example.test')
    await page.getByRole('heading', { name: english('passkey.offerHeading') }).waitFor({ timeout: 10_000 })
    t.ok(await holdsProof(context, base), 'the sign-in left a proof in the browser')
    await context.clearCookies({ name: PROOF_COOKIE })
    await page.getByRole('button', { name: english('passkey.create') }).click()
    t.ok(await confirmStepFocused(page), 'Confirm it\'s you, with the focus on its heading')
    t.equal((await authenticator.credentials()).length, 0, 'no passkey without the proof')
    const password = page.getByLabel(english('field.password'), { exact: true })
    t.equal(await password.getAttribute('autocomplete'), 'current-password')
    await password.fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: english('freshProof.confirm') }).click()
    await page.getByRole('heading', { name: english('passkey.offerCreated') }).waitFor()
    await page.getByRole('button', { name: english('passkey.offerContinue') }).click()
    await page.waitForURL(`${product}/home`)
    const held = await authenticator.credentials()
    t.equal(held.length, 1, 'the virtual authenticator holds the new passkey')
    linsPasskey = held[0]
    // The one 403 of the refused options; nothing else went wrong.
    t.same(unexpectedProblems(problems, [403]), [], 'no console errors and no CSP violations')
  })

  // The second-factor offer follows a password sign-in where no passkey offer showed: a remembered "Not now" on the passkey one.
  const declinePasskeyOffer = async (page: Page) => {
    await page.addInitScript((key) => localStorage.setItem(key, String(Date.now() + 86_400_000)), PASSKEY_OFFER_DECLINED_KEY)
  }

  await t.test('enrolling a second factor later: the offer → Confirm it\'s you → the password → the enrolment starts by itself', async (t) => {
    await registerAccount(base, 'mei@example.test')
    const { page, context } = await openWithAuthenticator(t)
    await declinePasskeyOffer(page)
    await page.goto(target)
    await signInOnPage(page, 'mei@example.test')
    await page.getByRole('heading', { name: english('secondFactor.offerHeading') }).waitFor({ timeout: 10_000 })
    await context.clearCookies({ name: PROOF_COOKIE })
    await page.getByRole('button', { name: english('secondFactor.offerAccept') }).click()
    t.ok(await confirmStepFocused(page), 'Confirm it\'s you, with the focus on its heading')
    t.equal(await page.getByRole('button', { name: english('freshProof.usePasskey') }).count(), 0, 'no passkey on the account: none offered')
    // The account has no second factor yet: the password alone is as strong as its sign-in.
    t.equal(await page.getByRole('textbox', { name: english('secondFactor.codeLabel') }).count(), 0, 'the password alone, no code')
    await page.getByLabel(english('field.password'), { exact: true }).fill(GOOD_PASSWORD)
    await page.keyboard.press('Enter')
    await page.getByRole('img', { name: english('secondFactor.qrLabel') }).waitFor()
    t.match(await page.getByTestId('enrolment-key').textContent(), /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the key to enrol, with no further click')
    t.ok(await holdsProof(context, base), 'the proof is in the browser again')
  })

  await t.test('the same with a passkey: "Use a passkey" proves it with the account\'s own passkey', async (t) => {
    t.ok(linsPasskey, 'the first journey made a passkey')
    const { page, context } = await openWithAuthenticator(t, [linsPasskey!])
    await withoutAutofill(page)
    await declinePasskeyOffer(page)
    await page.goto(target)
    await signInOnPage(page, 'lin@example.test')
    await page.getByRole('heading', { name: english('secondFactor.offerHeading') }).waitFor({ timeout: 10_000 })
    await context.clearCookies({ name: PROOF_COOKIE })
    await page.getByRole('button', { name: english('secondFactor.offerAccept') }).click()
    t.ok(await confirmStepFocused(page), 'Confirm it\'s you, with the focus on its heading')
    await page.getByRole('button', { name: english('freshProof.usePasskey') }).click()
    await page.getByRole('img', { name: english('secondFactor.qrLabel') }).waitFor()
    t.ok(await holdsProof(context, base), 'the passkey\'s assertion made a fresh proof')
  })

  await t.test('with an authenticator app: a remembered browser\'s offer → "Create a passkey" → the password and a code, in one call → the passkey', async (t) => {
    const email = 'ines@example.test'
    await registerAccount(base, email)
    // The enrolment right after a sign-in, which is its proof; the passkey offer declined on that page only.
    const enrolling = await openWithAuthenticator(t)
    await declinePasskeyOffer(enrolling.page)
    await enrolling.page.goto(target)
    await signInOnPage(enrolling.page, email)
    const { key, recoveryCodes } = await enrolFromOffer(enrolling.page)
    await enrolling.page.waitForURL(`${product}/home`)

    // This browser is remembered at its first sign-in with the second factor, so that the next one skips the
    // code and shows the passkey offer; a recovery code there leaves the app's next code for the proof.
    const { page, context, authenticator, problems } = await openWithAuthenticator(t)
    await page.goto(target)
    await signInOnPage(page, email)
    await verifyRememberingBrowser(page, recoveryCodes[0]!)
    await page.waitForURL(`${product}/home`)
    await page.goto(target)
    await signInOnPage(page, email)
    await page.getByRole('heading', { name: english('passkey.offerHeading') }).waitFor({ timeout: 10_000 })
    await context.clearCookies({ name: PROOF_COOKIE })
    const proofs: unknown[] = []
    page.on('request', (request) => { if (new URL(request.url()).pathname === '/accounts/reauthenticate') proofs.push(request.postDataJSON()) })
    await page.getByRole('button', { name: english('passkey.create') }).click()
    t.ok(await confirmStepFocused(page), 'Confirm it\'s you, with the focus on its heading')
    t.ok(await page.getByText(english('freshProof.passwordAndCode')).isVisible(), 'the step asks for the password and a code')
    const password = page.getByLabel(english('field.password'), { exact: true })
    const code = page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true })
    t.equal(await password.getAttribute('autocomplete'), 'current-password')
    t.equal(await code.getAttribute('autocomplete'), 'one-time-code')
    t.equal(await code.getAttribute('inputmode'), 'numeric')
    const confirm = page.getByRole('button', { name: english('freshProof.confirm') })
    await password.fill(GOOD_PASSWORD)
    t.ok(await confirm.isDisabled(), 'the password alone cannot confirm')
    // The next step's code: the enrolment spent this step's.
    await code.fill(authenticatorCode(key, 1))
    await confirm.click()
    await page.getByRole('button', { name: english('passkey.offerContinue') }).click()
    await page.waitForURL(`${product}/home`)
    t.same(proofs.map((proof) => Object.keys(proof as object).sort()), [['code', 'password']], 'one reauthenticate call, with both')
    t.equal((await authenticator.credentials()).length, 1, 'the virtual authenticator holds the new passkey')
    t.same(unexpectedProblems(problems, [403]), [], 'no console errors and no CSP violations')
  })
})
