import { execFile } from 'node:child_process'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { english } from '../../fixtures/languages/messages.js'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../../client/passkeys/passkey-timing.js'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { gapBelowHeading, HEADING_GAP_MAX_PX } from '../../fixtures/browsers/gap-below-heading.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { withoutAutofill } from '../../fixtures/passkeys/passkey-page.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'
import { registerAccount } from '../../fixtures/registration/registration.js'
import { addVirtualAuthenticator, base64url, type VirtualCredential } from '../../fixtures/passkeys/virtual-authenticator.js'

/*
 * Passkeys in real Chromium against the built server with its embedded
 * reference service (PASSKEYS on, the relying party ID `localhost`), with
 * Chromium's virtual authenticator (CDP WebAuthn domain: internal transport,
 * resident keys, user verification). The conditional-create success path is
 * in test/client/passkeys/passkeys.test.tsx: the virtual authenticator never
 * completes it (the page's 3 s bound ends it here). axe on the passkey button
 * and the offer is passkeys-accessibility.test.ts's (together they took 77 s
 * of tap's 120 s in CI).
 */

/** Waits (up to 5 s) for what the authenticator reports after the page's fire-and-forget signals. */
async function until (done: () => boolean): Promise<void> {
  for (let waited = 0; waited < 5000 && !done(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50))
}

t.test('passkeys in real Chromium with the virtual authenticator', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Every journey comes from 127.0.0.1: the per-address limit is raised so that the suite is not its own flood.
  // The second factor is off: after "Not now" its offer would follow (the second-factor suite's subject).
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', UNAUTHORIZED_DOMAINS: 'blocked.test', RATE_LIMIT_PER_MINUTE: '600', SECOND_FACTOR: 'false' })
  const { base } = server
  const runAdmin = (args: string[]) => promisify(execFile)(process.execPath, [fileURLToPath(new URL('../../../dist/server/accounts-admin.js', import.meta.url)), ...args], { env: { PATH: process.env.PATH, DATA_DIR: server.dataDir } })
  const target = `${base}/?redirect=${encodeURIComponent(`${product}/home`)}`

  const signIn = async (t: Test, size: { width: number, height: number } = { width: 1280, height: 800 }, credentials: readonly VirtualCredential[] = []) => {
    const opened = await openPage(t, size)
    const authenticator = await addVirtualAuthenticator(opened.page)
    for (const credential of credentials) await authenticator.addCredential(credential)
    return { ...opened, authenticator }
  }
  /** Ada's passkey, as the first journey's authenticator holds it (private key included). */
  let adasPasskey: VirtualCredential | undefined

  await t.test('password sign-in → the upgrade is ended by its bound → the offer → a passkey → sign in through autofill, and with the button', async (t) => {
    await registerAccount(base, 'ada@example.test')
    const { page, context, authenticator } = await signIn(t)
    await page.goto(target)
    await signInOnPage(page, 'ada@example.test')
    const started = Date.now()
    const heading = page.getByRole('heading', { name: english('passkey.offerHeading') })
    await heading.waitFor({ timeout: 10_000 })
    t.comment(`the offer showed ${Date.now() - started} ms after the Login click`)
    t.ok(await heading.evaluate((element) => element === document.activeElement), 'focus on the offer\'s heading')
    t.equal(page.url().startsWith(base), true, 'still on the page')
    t.ok(await gapBelowHeading(heading) <= HEADING_GAP_MAX_PX, 'no empty band below the offer\'s heading')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    // The card says the passkey is ready (and offers to sign out elsewhere: other-sessions.test.ts); Continue goes on.
    await page.getByRole('button', { name: english('passkey.offerContinue') }).click()
    await page.waitForURL(`${product}/home`)
    const held = await authenticator.credentials()
    t.equal(held.length, 1, 'a passkey on the authenticator')
    adasPasskey = held[0]

    await context.clearCookies()
    await page.goto(target)
    await page.waitForURL(`${product}/home`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in through autofill')

    await context.clearCookies()
    await withoutAutofill(page)
    await page.goto(target)
    // By keyboard alone: Tab from the Email field reaches the button, Enter starts the prompt.
    const button = page.getByRole('button', { name: 'Sign in with a passkey' })
    await page.getByLabel('Email', { exact: true }).focus()
    for (let presses = 0; presses < 10 && !await button.evaluate((element) => element === document.activeElement); presses++) await page.keyboard.press('Tab')
    t.ok(await button.evaluate((element) => element === document.activeElement), 'the button is reached by Tab')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${product}/home`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in with the button')
  })

  await t.test('"Not now" goes on and is remembered', async (t) => {
    await registerAccount(base, 'grace@example.test')
    const { page } = await signIn(t)
    await page.goto(target)
    await signInOnPage(page, 'grace@example.test')
    await page.getByRole('button', { name: english('passkey.notNow') }).click({ timeout: 10_000 })
    await page.waitForURL(`${product}/home`)
    await page.goto(base)
    t.ok(Number(await page.evaluate((key) => localStorage.getItem(key), PASSKEY_OFFER_DECLINED_KEY)) > Date.now(), 'remembered')
    await page.context().clearCookies()
    await page.goto(target)
    await signInOnPage(page, 'grace@example.test')
    await page.waitForURL(`${product}/home`)
    t.pass('no offer the second time')
  })

  await t.test('an unauthorized domain after a passkey: the spec\'s message and no session', async (t) => {
    await registerAccount(base, 'eve@blocked.test')
    const { page, context } = await signIn(t)
    await page.goto(target)
    await signInOnPage(page, 'eve@blocked.test')
    await page.getByRole('button', { name: english('passkey.create') }).click({ timeout: 10_000 })
    await page.getByRole('button', { name: english('passkey.offerContinue') }).click()
    await page.waitForURL(`${product}/home`)
    await context.clearCookies()
    await withoutAutofill(page)
    await page.goto(`${target}&supports_domain_auth_check=true`)
    // The edge set the refresh cookie with the sign-in's answer; the page revokes it once its check refuses.
    const revoked = page.waitForResponse((response) => new URL(response.url()).pathname === '/accounts/token/revoke')
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('alert').filter({ hasText: english('error.DOMAIN_NOT_AUTHORIZED') }).waitFor()
    t.equal((await revoked).status(), 200, 'the sign-in\'s session is revoked')
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), 'nothing stored')
  })

  await t.test('a passkey the service does not know is refused and deleted from the authenticator by the signal', async (t) => {
    const { page, authenticator } = await signIn(t)
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const credentialId = randomBytes(16).toString('base64')
    await authenticator.addCredential({
      credentialId, isResidentCredential: true, rpId: 'localhost', signCount: 0,
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      userHandle: randomBytes(16).toString('base64')
    })
    await withoutAutofill(page)
    await page.goto(target)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor()
    t.comment(`refusal shown: ${await page.getByRole('alert').textContent()}`)
    await until(() => authenticator.deleted.length > 0)
    t.same(authenticator.deleted, [base64url(credentialId)], 'WebAuthn.credentialDeleted, for that passkey')
    t.equal((await authenticator.credentials()).length, 0, 'the authenticator forgot it')
  })

  await t.test('a name changed since the passkey was made reaches the authenticator after a passkey sign-in', async (t) => {
    t.ok(adasPasskey, 'the first journey made a passkey')
    const { page, authenticator } = await signIn(t, undefined, [{ ...adasPasskey!, userName: 'ada@old.example', userDisplayName: 'Ada (old name)' }])
    await page.goto(target)
    await page.waitForURL(`${product}/home`)
    await until(() => authenticator.updated.length > 0)
    t.same(authenticator.updated, [{ credentialId: base64url(adasPasskey!.credentialId), name: 'ada@example.test', displayName: 'ada@example.test' }],
      'WebAuthn.credentialUpdated with the account\'s email and name (no name given at registration: the email)')
  })

  await t.test('a passkey removed with the admin command is refused and deleted from the authenticator by the signal', async (t) => {
    const { page, authenticator } = await signIn(t, undefined, [adasPasskey!])
    const id = base64url(adasPasskey!.credentialId)
    await runAdmin(['remove-passkey', 'ada@example.test', id])
    await page.goto(target)
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor()
    await until(() => authenticator.deleted.length > 0)
    t.same(authenticator.deleted, [id], 'WebAuthn.credentialDeleted, for the removed passkey')
    t.equal(new URL(page.url()).origin, base, 'not signed in: the page stays')
  })
})
