import type { Page } from 'playwright-core'
import t from 'tap'
import { CHALLENGE_HEADER, CHALLENGE_REQUIRED_STATUS } from '../../../common/challenge/challenge.js'
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, unexpectedProblems, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { startProductApp } from '../../fixtures/servers/product-app.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/**
 * The edge's challenge solved by real Chromium: the built server
 * (dist/) with the proof of work always asked for (CHALLENGE_RANGE_FAILURES=0),
 * a registration and a login from the page, each answered 428 first; the
 * page solves it in a Web Worker (its own hashed script under /assets/, which
 * the page's CSP lets run) and posts again with the solution, without the
 * visitor doing anything. axe finds nothing while the page works and after,
 * at a desktop's size and a phone's.
 */

const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 812 } } as const

/** What the page did on the wire and in workers. */
function watch (page: Page) {
  const seen = { challenged: 0, solutionsSent: 0, workers: [] as string[] }
  page.on('response', (response) => { if (response.status() === CHALLENGE_REQUIRED_STATUS) seen.challenged++ })
  page.on('request', (request) => { if (request.headers()[CHALLENGE_HEADER] !== undefined) seen.solutionsSent++ })
  page.on('worker', (worker) => seen.workers.push(new URL(worker.url()).pathname))
  return seen
}

t.test('with the challenge always on, Chromium registers and logs in, the proof of work solved in a Web Worker', { skip: browserSkip }, async (t) => {
  const product = await startProductApp(t)
  const { base } = await startBuiltServer(t, {
    CHALLENGE: 'pow',
    CHALLENGE_RANGE_FAILURES: '0',
    PASSKEYS: 'false',
    SECOND_FACTOR: 'false',
    REDIRECT_ALLOWED_HOSTS: '127.0.0.1'
  })

  for (const [name, size] of Object.entries(SIZES)) {
    await t.test(`at ${name} size (${size.width}×${size.height})`, async (t) => {
      const email = `ada-${name}@example.test`
      const password = 'a long and unbreached passphrase 42'
      const { page, context, problems } = await openPage(t, size)
      const seen = watch(page)

      await page.goto(`${base}/?view=register&redirect=${encodeURIComponent(`${product}/welcome`)}`)
      await waitForHydration(page)
      await page.getByLabel('Company Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill(password)
      await page.getByLabel('Confirm Password', { exact: true }).fill(password)
      await page.getByRole('button', { name: 'Sign Up', exact: true }).click()
      t.same(await wcagViolations(page), [], 'axe: nothing while the page solves and posts')
      // The registration ends on the login view, with its success said.
      await page.getByRole('heading', { name: 'Log in', exact: true }).waitFor({ timeout: 30_000 })
      await page.locator('.notice--success').waitFor()
      t.same(await wcagViolations(page), [], 'axe: nothing after the registration')
      t.ok(seen.challenged >= 1, 'the registration was challenged')
      t.ok(seen.solutionsSent >= 1, 'and posted again with a solution')
      t.ok(seen.workers.some((path) => /^\/assets\/pow-worker-[A-Z0-9]+\.js$/.test(path)), `solved in the worker script (${seen.workers.join(', ')})`)

      const challengedBefore = seen.challenged
      await signInOnPage(page, email, password)
      await page.waitForURL(`${product}/welcome`)
      t.ok(seen.challenged > challengedBefore, 'the login was challenged too')
      t.ok((await context.cookies(base)).some((cookie) => cookie.name === 'auth'), 'signed in: the auth cookie is set')
      // Chromium logs each 428 as a failed load; nothing else may show (no CSP violation for the worker, no error).
      t.same(unexpectedProblems(problems, Array.from({ length: seen.challenged }, () => CHALLENGE_REQUIRED_STATUS)), [], 'no console errors and no CSP violations')
    })
  }
})
