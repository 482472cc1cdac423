import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t from 'tap'
import { ERROR_MESSAGE_KEYS } from '../../../common/languages/error-messages.js'
import { english } from '../../fixtures/languages/messages.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { browserSkip, openPage as openWatchedPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer, startLocalAccounts } from '../../fixtures/servers/built-server.js'
import { newestResetLink } from '../../fixtures/emails/outbox.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../fixtures/google/google-identity.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/** The output file holding grpc-web and google-protobuf, from the build's metafile. */
function domainCheckChunk (): string {
  const meta = JSON.parse(readFileSync(fileURLToPath(new URL('../../../dist/client-meta.json', import.meta.url)), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>
  }
  const [path] = Object.entries(meta.outputs).find(([name, output]) =>
    name.endsWith('.js') && Object.keys(output.inputs).some((input) => input.includes('node_modules/grpc-web/')))!
  return path.slice(path.lastIndexOf('/') + 1)
}

/** Waits until the named Google button is enabled, which it is once Google's script has loaded. */
async function googleButtonReady (page: Page, name: string): Promise<void> {
  await page.waitForFunction((text) => [...document.querySelectorAll('button')]
    .some((button) => button.textContent === text && !button.disabled), name)
}

async function fill (page: Page, label: string, value: string): Promise<void> {
  await page.getByLabel(label, { exact: true }).fill(value)
}

t.test('journeys in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  const google = await startGoogleStandIn(t)
  // Google's script is served by the test on every page (there is no network);
  // tests of the Google flow route it again with the credential they need.
  const quietGoogle = google.clientScript('')
  const openPage = async (t: import('tap').Test) => {
    const opened = await openWatchedPage(t)
    await opened.context.route('https://accounts.google.com/gsi/client', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: quietGoogle }))
    return opened
  }
  const product = await startProductApp(t)
  // Passkeys and the second factor off: each password sign-in here ends at its redirect; the offers that would
  // follow it are the passkey and second-factor suites' subjects.
  const server = await startBuiltServer(t, {
    PASSKEYS: 'false',
    SECOND_FACTOR: 'false',
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1',
    GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID,
    GOOGLE_JWKS_URL: google.jwksUrl,
    AUTHORIZED_DOMAINS: 'good.test',
    UNAUTHORIZED_DOMAINS: 'blocked.test'
  })
  const { base } = server

  await t.test('register, log in, get the cookies and land on the redirect target with the hash', async (t) => {
    const { page, context, problems } = await openPage(t)
    await page.goto(`${base}/?view=register`)
    await fill(page, 'First Name (optional)', 'Ada')
    await fill(page, 'Company Email', 'ada@example.test')
    await fill(page, 'Password', 'correct horse battery')
    await fill(page, 'Confirm Password', 'correct horse battery')
    await page.getByRole('button', { name: 'Sign Up', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'account has been created' }).waitFor()
    t.equal(await page.getByLabel('Email', { exact: true }).inputValue(), 'ada@example.test', 'the registered email is kept')

    await page.goto(`${base}/?redirect=${encodeURIComponent(`${product}/dashboard`)}#projects/7`)
    await signInOnPage(page, 'ADA@example.test', 'correct horse battery')
    await page.waitForURL(`${product}/dashboard#projects/7`)
    t.equal(await page.locator('h1').textContent(), 'Welcome to the product')

    const cookies = await context.cookies(base)
    for (const name of ['auth', 'refresh']) {
      const cookie = cookies.find((candidate) => candidate.name === name)
      t.ok(cookie, `${name} cookie`)
      // On a loopback page over plain http, where WebKit keeps no Secure cookie (over https: test/e2e/sessions/session-cookies.test.ts).
      t.equal(cookie?.secure, false, `${name} goes without Secure on http://localhost`)
      t.equal(cookie?.sameSite, 'Lax', `${name} is SameSite=Lax`)
      t.equal(cookie?.domain, 'localhost', `${name} is host-only on localhost`)
      const days = ((cookie?.expires ?? 0) * 1000 - Date.now()) / 86_400_000
      // Within seconds of 14 days: the edge's Expires has whole seconds, and the browser's clock is read later.
      t.ok(days > 13.9 && days < 14 + 5 / 86_400, `${name} lasts 14 days (${days.toFixed(5)})`)
    }
    const auth = cookies.find((candidate) => candidate.name === 'auth')!.value
    t.match(JSON.parse(Buffer.from(auth.split('.')[1]!, 'base64url').toString()), { email: 'ada@example.test', amr: ['pwd'] })
    t.same(problems, [])
  })

  await t.test('reset by email: the link from the outbox sets a new password that then logs in', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(`${base}/?view=resetPassword`)
    await waitForHydration(page)
    await fill(page, 'Email', 'ada@example.test')
    await page.getByRole('button', { name: 'Send a Password Reset Email' }).click()
    await page.getByRole('status').waitFor()
    t.match(await page.getByRole('status').textContent(), /If an account exists/)

    const link = await newestResetLink(server.dataDir)
    t.match(link, new RegExp(`^${base}/\\?view=setPassword&token=`))
    await page.goto(link)
    await waitForHydration(page)
    await fill(page, 'New Password', 'a brand new passphrase')
    await fill(page, 'Confirm Password', 'a brand new passphrase')
    await page.getByRole('button', { name: 'Set New Password' }).click()
    await page.getByRole('status').filter({ hasText: 'password has been changed' }).waitFor()
    t.notMatch(page.url(), /token=/, 'the used token left the address bar')

    await page.goto(link)
    await waitForHydration(page)
    await fill(page, 'New Password', 'another new passphrase')
    await fill(page, 'Confirm Password', 'another new passphrase')
    await page.getByRole('button', { name: 'Set New Password' }).click()
    await page.getByRole('alert').filter({ hasText: /invalid, used or expired/ }).waitFor()
    t.pass('the link works once')

    await page.goto(`${base}/?redirect=${encodeURIComponent(`${product}/home`)}`)
    await signInOnPage(page, 'ada@example.test', 'a brand new passphrase')
    await page.waitForURL(`${product}/home`)
    t.same(unexpectedProblems(problems, [400]), [], 'nothing but the refused second use of the link')
  })

  await t.test('every error key in the address shows its message', async (t) => {
    const { page, problems } = await openPage(t)
    for (const [key, messageKey] of Object.entries(ERROR_MESSAGE_KEYS)) {
      await page.goto(`${base}/?error=${key}`)
      t.equal(await page.getByRole('alert').textContent(), english(messageKey), key)
    }
    await page.goto(`${base}/?error=${encodeURIComponent('<script>alert(1)</script>Plain words')}`)
    t.equal(await page.getByRole('alert').textContent(), '<script>alert(1)</script>Plain words', 'unknown values verbatim, as text')
    t.same(problems, [])
  })

  await t.test('view switching rewrites the address and the back button returns', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(`${base}/?cluster_name=prod`)
    await page.getByRole('link', { name: 'Sign Up' }).click()
    t.equal(new URL(page.url()).search, '?cluster_name=prod&view=register')
    await page.getByRole('link', { name: 'Login' }).click()
    await page.getByRole('link', { name: 'Forgot Password' }).click()
    await page.getByRole('button', { name: 'Send a Password Reset Email' }).waitFor()
    await page.goBack()
    await page.getByRole('button', { name: 'Login', exact: true }).waitFor()
    await page.goBack()
    await page.getByRole('button', { name: 'Sign Up', exact: true }).waitFor()
    t.equal(new URL(page.url()).searchParams.get('view'), 'register')
    t.same(problems, [])
  })

  await t.test('the SSO modal opens prefilled, Cancel and Escape close it, and focus returns', async (t) => {
    const { page, problems } = await openPage(t)
    await page.goto(base)
    await fill(page, 'Email', 'ada@corp.test')
    const opener = page.getByRole('button', { name: 'Login with Custom SSO provider' })
    await opener.click()
    const dialog = page.getByRole('dialog', { name: 'SSO Login' })
    t.equal(await dialog.getByLabel('Email').inputValue(), 'ada@corp.test')
    t.ok(await page.evaluate(() => document.activeElement?.getAttribute('name') === 'email' && document.querySelector('[role="dialog"]')?.contains(document.activeElement)), 'focus moved into the dialog')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    t.ok(await opener.evaluate((element) => element === document.activeElement), 'focus returned to the opener')
    await opener.click()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    await opener.click()
    await dialog.getByRole('button', { name: 'Login', exact: true }).click()
    await dialog.getByRole('alert').filter({ hasText: /not set up/ }).waitFor()
    t.pass('an email domain without an SSO connection is told so')
    t.same(unexpectedProblems(problems, [400]), [])
  })

  await t.test('Google: register, then log in, with the GIS script served by the test', async (t) => {
    const { page, context, problems } = await openPage(t)
    await page.route('https://accounts.google.com/gsi/client', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: google.clientScript() }))
    /** What Google does: a new ID token for each sign-in, carrying the nonce the page gave it. */
    const handOutCredential = async (): Promise<void> => {
      const nonce = await page.evaluate(() => (window as { __testGoogleNonce?: string }).__testGoogleNonce)
      t.match(nonce, /^[\w-]{43}$/, 'the page gave Google a nonce')
      const credential = await google.credential({ email: 'grace@example.test', sub: 'google-subject-1', nonce })
      await page.evaluate((value) => { (window as { __testGoogleCredential?: string }).__testGoogleCredential = value }, credential)
    }
    await page.goto(`${base}/?view=register`)
    await googleButtonReady(page, 'Sign up with Google')
    await handOutCredential()
    await page.getByRole('button', { name: 'Sign up with Google' }).click()
    await page.getByRole('status').filter({ hasText: 'created with Google' }).waitFor()

    // Accepted only with this page's nonce secret, which the page sent through the edge.
    await page.goto(`${base}/?redirect=${encodeURIComponent(`${product}/g`)}`)
    await googleButtonReady(page, 'Login with Google')
    await handOutCredential()
    await page.getByRole('button', { name: 'Login with Google' }).click()
    await page.waitForURL(`${product}/g`)
    const auth = (await context.cookies(base)).find((cookie) => cookie.name === 'auth')!.value
    t.match(JSON.parse(Buffer.from(auth.split('.')[1]!, 'base64url').toString()), { email: 'grace@example.test', amr: ['google'] })
    t.same(problems, [])
  })

  await t.test('Google: a credential without an email fails with the Google message', async (t) => {
    const { page, problems } = await openPage(t)
    const credential = await google.credential({ sub: 'no-email' })
    await page.route('https://accounts.google.com/gsi/client', (route) =>
      route.fulfill({ status: 200, contentType: 'text/javascript', body: google.clientScript(credential) }))
    await page.goto(base)
    await googleButtonReady(page, 'Login with Google')
    await page.getByRole('button', { name: 'Login with Google' }).click()
    await page.getByRole('alert').filter({ hasText: english('error.GOOGLE_LOGIN_FAILED') }).waitFor()
    t.same(problems, [], 'refused in the page: nothing was sent')
  })

  await t.test('local-network mode logs in at a local accounts server on loopback', async (t) => {
    const local = await startLocalAccounts(t, { dataDir: server.dataDir, allowedOrigin: base })
    const { page, context, problems } = await openPage(t)
    await page.goto(`${base}/?local_accounts_host=127.0.0.1&local_accounts_port=${local.port}&redirect=${encodeURIComponent(`${product}/local`)}`)
    t.equal(await page.getByRole('link', { name: 'Sign Up' }).count(), 0, 'no view switching')
    t.equal(await page.getByRole('button', { name: /Google|SSO/ }).count(), 0, 'only the local method')
    await signInOnPage(page, 'ada@example.test', 'a brand new passphrase')
    await page.waitForURL(`${product}/local`)
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'))
    // The answer came from the local listener, past the edge: the page wrote the refresh cookie itself.
    t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'refresh' && !cookie.httpOnly), 'the refresh cookie, written by the page')
    t.same(problems, [])
  })

  await t.test('local-network mode refuses a host that is not allowed, and sends nothing', async (t) => {
    const { page, problems } = await openPage(t)
    const outgoing: string[] = []
    page.on('request', (request) => outgoing.push(request.url()))
    await page.goto(`${base}/?local_accounts_host=evil.test`)
    t.match(await page.getByRole('alert').textContent(), /not allowed/)
    await signInOnPage(page, 'ada@example.test', 'secret passphrase')
    await page.waitForTimeout(300)
    t.notOk(outgoing.some((url) => new URL(url).hostname === 'evil.test'), 'no request to the stranger\'s host')
    t.same(problems, [])
  })

  await t.test('the domain check refuses an unauthorized domain and lets others through; without it no gRPC-web code loads', async (t) => {
    const chunk = domainCheckChunk()
    const { page, problems } = await openPage(t)
    const loaded: string[] = []
    page.on('request', (request) => loaded.push(request.url()))

    await page.goto(base)
    await page.getByRole('button', { name: 'Login', exact: true }).waitFor()
    await page.waitForLoadState('networkidle')
    t.notOk(loaded.some((url) => url.endsWith(chunk)), `the login view without the parameter does not load ${chunk}`)

    await page.goto(`${base}/?supports_domain_auth_check=true`)
    await page.waitForLoadState('networkidle')
    t.ok(loaded.some((url) => url.endsWith(chunk)), 'with the parameter, the chunk is fetched at once')
    await signInOnPage(page, 'someone@blocked.test', 'whatever passphrase')
    await page.getByRole('alert').filter({ hasText: english('error.DOMAIN_NOT_AUTHORIZED') }).waitFor()
    t.notOk(loaded.some((url) => url.endsWith('/accounts/v2/login')), 'no login was sent')

    await signInOnPage(page, 'ada@example.test', 'a brand new passphrase')
    await page.waitForURL(`${base}/`)
    t.same(problems, [])
  })
})
