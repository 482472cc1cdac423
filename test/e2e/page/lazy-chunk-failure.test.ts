import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import t from 'tap'
import arabic from '../../../common/messages/ar.json' with { type: 'json' }
import { wcagViolations } from '../../fixtures/browsers/axe.js'
import { browserSkip, openPage, waitForHydration } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

// A lazy part whose chunk does not arrive, in real Chromium against the
// built server: the SSO modal's chunk is aborted once (the retry in
// client/page/load-chunk.ts loads it) and then always (the message and its
// button, client/components/LazyPart.tsx).

const FAILED = 'This part of the page could not be loaded. Check your connection and try again.'
const SIZES = [{ width: 1280, height: 800 }, { width: 375, height: 812 }] as const

/** The built chunk that holds the SSO modal, from the build's metafile (chunk names are hashes only). */
function ssoModalChunk (): string {
  const meta = JSON.parse(readFileSync(fileURLToPath(new URL('../../../dist/client-meta.json', import.meta.url)), 'utf8')) as
    { outputs: Record<string, { inputs: Record<string, unknown> }> }
  const found = Object.entries(meta.outputs).find(([, output]) => Object.keys(output.inputs).includes('client/sso/SsoModal.tsx'))
  if (found === undefined) throw new Error('no SSO modal chunk in dist/client-meta.json; run the build')
  return found[0].replace(/^.*\/assets\//, '')
}

/** Aborts the first `failures` requests for the chunk, as a dropped connection does; returns how many were asked. */
async function failChunk (page: Page, chunk: string, failures: number): Promise<{ requests: number }> {
  const seen = { requests: 0 }
  await page.route(`**/assets/${chunk}`, async (route) => {
    seen.requests++
    if (seen.requests <= failures) await route.abort('internetdisconnected')
    else await route.continue()
  })
  return seen
}

async function openSso (page: Page, name = 'Login with Custom SSO provider'): Promise<void> {
  await page.getByRole('button', { name }).click()
}

t.test('the SSO modal\'s chunk that fails to load, in real Chromium', { skip: browserSkip }, async (t) => {
  const { base } = await startBuiltServer(t)
  const chunk = ssoModalChunk()

  await t.test('failing once: the retry loads it, the modal opens and nothing is said', async (t) => {
    const { page } = await openPage(t)
    const seen = await failChunk(page, chunk, 1)
    await page.goto(base)
    await waitForHydration(page)
    await openSso(page)
    await page.getByRole('dialog', { name: 'SSO Login' }).waitFor()
    t.equal(seen.requests, 2, 'asked again after the failure')
    t.equal(await page.getByText(FAILED).count(), 0)
  })

  for (const size of SIZES) {
    await t.test(`failing always (${size.width} px): the message in the card, with focus, axe-clean, and the button tries again`, async (t) => {
      const { page } = await openPage(t, size)
      const seen = await failChunk(page, chunk, Infinity)
      await page.goto(base)
      await waitForHydration(page)
      await openSso(page)
      const alert = page.getByRole('alert').filter({ hasText: FAILED })
      await alert.waitFor()
      t.equal(await page.evaluate(() => document.activeElement?.textContent), FAILED, 'focus is on the message')
      t.equal(seen.requests, 3, 'tried, then tried twice more')
      t.same(await wcagViolations(page), [])

      await page.unroute(`**/assets/${chunk}`)
      await alert.getByRole('button', { name: 'Try again' }).click()
      await page.getByRole('dialog', { name: 'SSO Login' }).waitFor()
      t.equal(await page.getByText(FAILED).count(), 0, 'the message goes once the part is here')
    })
  }

  for (const size of SIZES) {
    await t.test(`failing always in Arabic, dark (${size.width} px): the message right to left, with focus, axe-clean`, async (t) => {
      const { page } = await openPage(t, { ...size, locale: 'ar', colorScheme: 'dark' })
      await failChunk(page, chunk, Infinity)
      await page.goto(base)
      await waitForHydration(page)
      t.equal(await page.evaluate(() => document.documentElement.dir), 'rtl', 'the page is right to left')
      await openSso(page, arabic['methods.loginWithSso'])
      const alert = page.getByRole('alert').filter({ hasText: arabic['lazyPart.failed'] })
      await alert.waitFor()
      t.equal(await page.evaluate(() => document.activeElement?.textContent), arabic['lazyPart.failed'], 'focus is on the message')
      t.ok(await alert.getByRole('button', { name: arabic['lazyPart.retry'] }).isVisible(), 'its button says try again in Arabic')
      t.same(await wcagViolations(page), [])
    })
  }
})
