import t from 'tap'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

t.test('the 404 page in real Chromium: one request, no favicon lookup, no CSP violation', { skip: browserSkip }, async (t) => {
  const server = await startBuiltServer(t)
  const { page, problems } = await openPage(t)
  const requested: string[] = []
  page.on('request', (request) => { requested.push(new URL(request.url()).pathname) })
  const response = await page.goto(`${server.base}/no/such/page`)
  t.equal(response?.status(), 404)
  t.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Page not found')
  t.equal(await page.getByRole('link', { name: 'Go to the sign-in page' }).getAttribute('href'), '/')
  // Chromium asks for the icon once the page has loaded; give it the time to.
  await page.waitForLoadState('load')
  await page.waitForTimeout(500)
  t.same(requested, ['/no/such/page'], 'the page loads nothing else')
  // Playwright does not show the browser's own /favicon.ico request as a page
  // request, but its 404 reaches the console: one 404 here is the page's own.
  t.same(problems, ['console: Failed to load resource: the server responded with a status of 404 (Not Found)'], 'no /favicon.ico lookup: the only 404 is the page\'s own')
})
