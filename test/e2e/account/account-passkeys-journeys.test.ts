import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { browserSkip, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { registerAccount, verifyAddress } from '../../fixtures/registration/registration.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { withoutAutofill, withoutPasskeyUpgrade } from '../../fixtures/passkeys/passkey-page.js'
import { addVirtualAuthenticator, base64url } from '../../fixtures/passkeys/virtual-authenticator.js'
import { authenticatorCode } from '../../fixtures/second-factor/second-factor-page.js'
import { GOOD_PASSWORD } from '../../fixtures/servers/reference.js'

/*
 * The account view's passkeys and two-step verification in real Chromium,
 * against the built server with its embedded reference service (PASSKEYS and
 * SECOND_FACTOR on), with Chromium's virtual authenticator (CDP WebAuthn
 * domain). Each change asks its fresh proof in place and carries on.
 */

/** Waits (up to 5 s) for what the authenticator reports after the page's fire-and-forget signals. */
async function until (done: () => boolean): Promise<void> {
  for (let waited = 0; waited < 5000 && !done(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
}

/** The account view's section named by its heading. */
const section = (page: Page, heading: string) => page.getByRole('region', { name: heading })

/** From the login view (reached from the account view), past the offers ("Not now"), back on the account view. */
async function signInToAccountView (page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/?view=account`)
  await signInOnPage(page, email)
  const passkeys = page.getByRole('heading', { name: english('account.passkeys.heading') })
  const notNow = page.getByRole('button', { name: english('passkey.notNow') })
  const notNowCode = page.getByRole('button', { name: english('secondFactor.notNow') })
  for (;;) {
    await passkeys.or(notNow).or(notNowCode).first().waitFor({ timeout: 10_000 })
    if (await passkeys.isVisible()) return await waitForHydration(page)
    if (await notNow.isVisible()) await notNow.click()
    else if (await notNowCode.isVisible()) await notNowCode.click()
  }
}

/**
 * Five minutes on, as far as the service is concerned: the sign-in's proof
 * (the `threshold_proof` cookie, docs/account-changes.md) is gone, so the
 * next change asks for a fresh one.
 */
async function proofExpired (page: Page): Promise<void> {
  await page.context().clearCookies({ name: 'threshold_proof' })
}

/** The fresh proof asked in place, with the password (and, when given, the authenticator code). */
async function proveInPlace (page: Page, code?: string): Promise<void> {
  await page.getByRole('heading', { name: english('freshProof.heading') }).waitFor()
  await page.getByRole('textbox', { name: english('field.password'), exact: true }).fill(GOOD_PASSWORD)
  if (code !== undefined) await page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true }).fill(code)
  await page.getByRole('button', { name: english('freshProof.confirm'), exact: true }).click()
}

/** "Turn on" in the account view, through the enrolment steps (a code from the app holding the key shown), to "on"; returns the key. */
async function enrolInView (page: Page): Promise<string> {
  const factor = section(page, english('account.secondFactor.heading'))
  await factor.getByRole('button', { name: english('account.secondFactor.turnOn') }).click()
  await factor.getByRole('img', { name: english('secondFactor.qrLabel') }).waitFor()
  const key = (await factor.getByTestId('enrolment-key').textContent()) ?? ''
  await factor.getByLabel(english('secondFactor.firstCodeLabel')).fill(authenticatorCode(key))
  await factor.getByRole('button', { name: english('secondFactor.confirm'), exact: true }).click()
  await factor.getByRole('list', { name: english('secondFactor.codesHeading') }).getByRole('listitem').first().waitFor()
  await factor.getByRole('checkbox', { name: english('secondFactor.codesSaved') }).check()
  await factor.getByRole('button', { name: english('secondFactor.continue') }).click()
  await factor.getByRole('status').filter({ hasText: english('account.secondFactor.turnedOn') }).waitFor()
  await factor.getByText(english('account.secondFactor.on')).waitFor()
  return key
}

t.test('the account view\'s passkeys and two-step verification in real Chromium', { skip: browserSkip }, async (t) => {
  // Every journey comes from 127.0.0.1: the per-address limit is raised so that the suite is not its own flood.
  const server = await startBuiltServer(t, { RATE_LIMIT_PER_MINUTE: '600', PASSKEYS: 'true', SECOND_FACTOR: 'true' })
  const { base } = server

  const withAuthenticator = async (t: Test) => {
    const opened = await openPage(t)
    await withoutPasskeyUpgrade(opened.page)
    await withoutAutofill(opened.page)
    return { ...opened, authenticator: await addVirtualAuthenticator(opened.page) }
  }

  await t.test('add a passkey (proof in place), rename it (kept after a reload), remove it: it no longer signs in', async (t) => {
    await verifyAddress(base, server.dataDir, 'ada@example.test', await registerAccount(base, 'ada@example.test'))
    const { page, authenticator, problems } = await withAuthenticator(t)
    await signInToAccountView(page, base, 'ada@example.test')
    const passkeys = section(page, english('account.passkeys.heading'))
    await passkeys.getByText(english('account.passkeys.none')).waitFor()

    await proofExpired(page)
    await passkeys.getByRole('button', { name: english('account.passkeys.add') }).click()
    await proveInPlace(page)
    await passkeys.getByRole('status').filter({ hasText: english('account.passkeys.added') }).waitFor()
    const [made] = await authenticator.credentials()
    t.ok(made, 'the authenticator holds the new passkey')
    t.equal(await passkeys.getByRole('listitem').count(), 1, 'the list shows it')

    await passkeys.getByRole('button', { name: english('account.passkeys.rename') }).click()
    await passkeys.getByLabel(english('account.passkeys.nameLabel')).fill('  Work laptop ')
    await passkeys.getByRole('button', { name: english('account.passkeys.save') }).click()
    await passkeys.getByRole('status').filter({ hasText: english('account.passkeys.renamed', { name: 'Work laptop' }) }).waitFor()

    await page.reload()
    await passkeys.getByRole('listitem').filter({ hasText: 'Work laptop' }).waitFor()
    t.pass('the new name shows after a reload')
    t.same(authenticator.deleted, [], 'the list the view signals holds it: the authenticator keeps it')

    await passkeys.getByRole('button', { name: english('account.passkeys.remove') }).click()
    await passkeys.getByRole('status').filter({ hasText: english('account.passkeys.removed', { name: 'Work laptop' }) }).waitFor()
    await passkeys.getByText(english('account.passkeys.none')).waitFor()
    await until(() => authenticator.deleted.length > 0)
    t.same(authenticator.deleted, [base64url(made!.credentialId)], 'signalUnknownCredential for the removed passkey')
    t.same(unexpectedProblems(problems, [403]), [], 'nothing but the change that asked for its proof')

    // Another browser that still holds the removed passkey: the service refuses it.
    const other = await withAuthenticator(t)
    await other.authenticator.addCredential(made!)
    await other.page.goto(`${base}/?view=account`)
    await other.page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await other.page.getByRole('alert').filter({ hasText: /./ }).waitFor()
    t.notOk((await other.context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'the removed passkey no longer signs in')

    // A third that holds it, signed in with the password: the list's user handle (passkeys/list's user_id) lets the view tell it the account accepts none.
    const third = await withAuthenticator(t)
    await third.authenticator.addCredential(made!)
    await signInToAccountView(third.page, base, 'ada@example.test')
    await until(() => third.authenticator.deleted.length > 0)
    t.same(third.authenticator.deleted, [base64url(made!.credentialId)], 'signalAllAcceptedCredentials dropped it')
  })

  await t.test('turn two-step verification off from the view (password and code in place), then on again with the enrolment steps', async (t) => {
    await verifyAddress(base, server.dataDir, 'grace@example.test', await registerAccount(base, 'grace@example.test'))
    const { page, context } = await withAuthenticator(t)
    await signInToAccountView(page, base, 'grace@example.test')
    const factor = section(page, english('account.secondFactor.heading'))
    const key = await enrolInView(page)

    await proofExpired(page)
    await factor.getByRole('button', { name: english('account.secondFactor.turnOff') }).click()
    // The enrolment spent this step's code: the next one, within the one step of drift the service accepts.
    await proveInPlace(page, authenticatorCode(key, 1))
    await factor.getByRole('status').filter({ hasText: english('account.secondFactor.turnedOff') }).waitFor()
    await factor.getByText(english('account.secondFactor.off')).waitFor()

    // The proof the turn-off asked for is still fresh: the enrolment runs at once.
    const newKey = await enrolInView(page)
    // The service derives a signed-in enrolment's secret from its auth token (server/reference/second-factor/second-factor-enrolment-secrets.ts),
    // so within one token the old app's key comes back: whoever copied it then still holds the second factor.
    t.not(newKey.replace(/ /g, ''), key.replace(/ /g, ''), 'a new key')
    await page.reload()
    await factor.getByText(english('account.secondFactor.on')).waitFor()
    t.pass('on after a reload')

    await context.clearCookies()
    await page.goto(`${base}/?view=account`)
    await signInOnPage(page, 'grace@example.test')
    await page.getByRole('heading', { name: english('secondFactor.codeHeading') }).waitFor()
    await page.getByRole('textbox', { name: english('secondFactor.codeLabel'), exact: true }).fill(authenticatorCode(newKey, 1))
    await page.getByRole('button', { name: english('secondFactor.verify') }).click()
    await factor.getByText(english('account.secondFactor.on')).waitFor()
    t.pass('the next sign-in asks for the new app\'s code, and lands on the account view')
  })
})
