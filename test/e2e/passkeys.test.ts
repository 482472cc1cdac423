import { generateKeyPairSync, randomBytes } from 'node:crypto'
import type { CDPSession, Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { ERROR_MESSAGES, PASSKEY_OFFER_MESSAGES } from '../../client/lib/messages.js'
import { PASSKEY_OFFER_DECLINED_KEY } from '../../client/passkeys/passkey-timing.js'
import { wcagViolations } from '../fixtures/axe.js'
import { browserSkip, openPage } from '../fixtures/browser.js'
import { startBuiltServer } from '../fixtures/built-server.js'
import { startProductApp } from '../fixtures/product-app.js'
import { GOOD_PASSWORD, registerAccount } from '../fixtures/reference.js'

/*
 * Passkeys in real Chromium against the built server with its embedded
 * reference service (PASSKEYS on, the relying party ID `localhost`), with
 * Chromium's virtual authenticator (CDP WebAuthn domain: internal transport,
 * resident keys, user verification). The conditional-create success path is
 * in test/client/passkeys.test.tsx: the virtual authenticator never
 * completes it (the page's 3 s bound ends it here).
 */

interface VirtualAuthenticator {
  readonly cdp: CDPSession
  readonly id: string
  credentials (): Promise<Array<{ credentialId: string, userName?: string, userDisplayName?: string }>>
  readonly events: Array<{ method: string, params: unknown }>
}

async function addAuthenticator (page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true,
      isUserVerified: true, automaticPresenceSimulation: true
    }
  })
  const events: VirtualAuthenticator['events'] = []
  for (const method of ['WebAuthn.credentialDeleted', 'WebAuthn.credentialUpdated', 'WebAuthn.credentialAdded'] as const) {
    cdp.on(method, (params: unknown) => events.push({ method, params }))
  }
  return {
    cdp,
    id: authenticatorId,
    events,
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
  }
}

/**
 * The virtual authenticator answers a conditional request at once, with its
 * only passkey, where a visitor would pick from the autofill menu; a journey
 * about the button turns conditional mediation off in that page, so that
 * only the button's prompt runs.
 */
async function withoutAutofill (page: Page): Promise<void> {
  await page.addInitScript(() => {
    (PublicKeyCredential as unknown as { isConditionalMediationAvailable: () => Promise<boolean> }).isConditionalMediationAvailable = async () => false
  })
}

async function passwordLogin (page: Page, email: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: 'Login', exact: true }).click()
}

t.test('passkeys in real Chromium with the virtual authenticator', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  // Every journey comes from 127.0.0.1: the per-address limit is raised so that the suite is not its own flood.
  const server = await startBuiltServer(t, { REDIRECT_ALLOWED_HOSTS: '127.0.0.1', UNAUTHORIZED_DOMAINS: 'blocked.test', RATE_LIMIT_PER_MINUTE: '600' })
  const { base } = server
  const target = `${base}/?redirect=${encodeURIComponent(`${product}/home`)}`

  const signIn = async (t: Test, size: { width: number, height: number } = { width: 1280, height: 800 }) => {
    const opened = await openPage(t, size)
    const authenticator = await addAuthenticator(opened.page)
    return { ...opened, authenticator }
  }

  await t.test('password sign-in → the upgrade is ended by its bound → the offer → a passkey → sign in through autofill, and with the button', async (t) => {
    await registerAccount(base, 'ada@example.test')
    const { page, context, authenticator } = await signIn(t)
    await page.goto(target)
    await passwordLogin(page, 'ada@example.test')
    const started = Date.now()
    const heading = page.getByRole('heading', { name: PASSKEY_OFFER_MESSAGES.HEADING })
    await heading.waitFor({ timeout: 10_000 })
    t.comment(`the offer showed ${Date.now() - started} ms after the Login click`)
    t.ok(await heading.evaluate((element) => element === document.activeElement), 'focus on the offer\'s heading')
    t.equal(page.url().startsWith(base), true, 'still on the page')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await page.waitForURL(`${product}/home`)
    t.equal((await authenticator.credentials()).length, 1, 'a passkey on the authenticator')

    await context.clearCookies()
    await page.goto(target)
    await page.waitForURL(`${product}/home`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in through autofill')

    await context.clearCookies()
    await withoutAutofill(page)
    await page.goto(target)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${product}/home`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in with the button')
  })

  await t.test('"Not now" goes on and is remembered', async (t) => {
    await registerAccount(base, 'grace@example.test')
    const { page } = await signIn(t)
    await page.goto(target)
    await passwordLogin(page, 'grace@example.test')
    await page.getByRole('button', { name: PASSKEY_OFFER_MESSAGES.NOT_NOW }).click({ timeout: 10_000 })
    await page.waitForURL(`${product}/home`)
    await page.goto(base)
    t.ok(Number(await page.evaluate((key) => localStorage.getItem(key), PASSKEY_OFFER_DECLINED_KEY)) > Date.now(), 'remembered')
    await page.context().clearCookies()
    await page.goto(target)
    await passwordLogin(page, 'grace@example.test')
    await page.waitForURL(`${product}/home`)
    t.pass('no offer the second time')
  })

  await t.test('an unauthorized domain after a passkey: the spec\'s message and no session', async (t) => {
    await registerAccount(base, 'eve@blocked.test')
    const { page, context } = await signIn(t)
    await page.goto(target)
    await passwordLogin(page, 'eve@blocked.test')
    await page.getByRole('button', { name: PASSKEY_OFFER_MESSAGES.CREATE }).click({ timeout: 10_000 })
    await page.waitForURL(`${product}/home`)
    await context.clearCookies()
    await withoutAutofill(page)
    await page.goto(`${target}&supports_domain_auth_check=true`)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('alert').filter({ hasText: ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED }).waitFor()
    t.notOk((await context.cookies(base)).some((cookie) => cookie.name === 'auth' || cookie.name === 'refresh'), 'nothing stored')
  })

  await t.test('a passkey the service does not know is refused and deleted from the authenticator by the signal', async (t) => {
    const { page, authenticator } = await signIn(t)
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const credentialId = randomBytes(16).toString('base64')
    await authenticator.cdp.send('WebAuthn.addCredential', {
      authenticatorId: authenticator.id,
      credential: {
        credentialId, isResidentCredential: true, rpId: 'localhost', signCount: 0,
        privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
        userHandle: randomBytes(16).toString('base64')
      }
    })
    await withoutAutofill(page)
    await page.goto(target)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByRole('alert').filter({ hasText: /./ }).waitFor()
    t.comment(`refusal shown: ${await page.getByRole('alert').textContent()}`)
    for (let waited = 0; waited < 5000 && !authenticator.events.some((event) => event.method === 'WebAuthn.credentialDeleted'); waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    t.ok(authenticator.events.some((event) => event.method === 'WebAuthn.credentialDeleted'), 'WebAuthn.credentialDeleted')
    t.equal((await authenticator.credentials()).length, 0, 'the authenticator forgot it')
  })

  await t.test('axe finds no WCAG 2.2 A/AA violation on the passkey button nor on the offer, at both sizes', async (t) => {
    // One account for both (registrations are rate limited): each size opens a fresh browser context, with no passkey on it.
    const email = 'kim@example.test'
    await registerAccount(base, email)
    for (const [name, size] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 375, height: 812 }]] as const) {
      const { page } = await signIn(t, size)
      await withoutAutofill(page)
      await page.goto(target)
      await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor()
      t.same(await wcagViolations(page), [], `${name}: the login view with the passkey button`)
      await passwordLogin(page, email)
      await page.getByRole('heading', { name: PASSKEY_OFFER_MESSAGES.HEADING }).waitFor({ timeout: 10_000 })
        .catch(async (error: unknown) => {
          t.comment(`no offer: at ${page.url()}, notice ${JSON.stringify(await page.locator('#form-notice').textContent().catch(() => null))}`)
          throw error
        })
      t.same(await wcagViolations(page), [], `${name}: the offer`)
    }
  })
})
