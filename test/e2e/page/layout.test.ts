import type { Page } from 'playwright-core'
import t from 'tap'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

/** The layout the stylesheet's media queries chose (no script decides it: the page is rendered on the server). */
async function layout (page: Page) {
  return page.evaluate(() => ({
    layout: getComputedStyle(document.querySelector('.page__columns')!).gridTemplateColumns.split(' ').length === 2
      ? 'wide'
      : getComputedStyle(document.querySelector('.card')!).paddingLeft === '16px' ? 'narrow' : 'stacked',
    cardWidth: Math.round(document.querySelector('.card')!.getBoundingClientRect().width),
    columns: getComputedStyle(document.querySelector('.page__columns')!).gridTemplateColumns.split(' ').length,
    video: document.querySelector('video source[type="video/webm"]')?.getAttribute('src') ?? null,
    poster: document.querySelector<HTMLImageElement>('img.background__media')?.currentSrc ?? null
  }))
}

t.test('layout and background in real Chromium', { skip: browserSkip }, async (t) => {
  const { base } = await startBuiltServer(t)

  await t.test('desktop: a 400 px card beside a second column, the desktop video once the page has loaded', async (t) => {
    const { page, problems } = await openPage(t, { width: 1280, height: 800 })
    const media: string[] = []
    page.on('request', (request) => { if (/background-.*\.(webm|mp4)$/.test(request.url())) media.push(request.url()) })
    await page.goto(base)
    await page.waitForSelector('video')
    const seen = await layout(page)
    t.equal(seen.layout, 'wide')
    t.equal(seen.cardWidth, 400)
    t.equal(seen.columns, 2)
    t.match(seen.video, /background-desktop-/)
    await page.waitForFunction(() => {
      const video = document.querySelector('video')
      return video !== null && video.readyState >= 2 && !video.paused && video.currentTime > 0
    }, undefined, { timeout: 10_000 })
    t.pass('the video plays (muted, looped, inline)')
    t.ok(await page.evaluate(() => { const video = document.querySelector('video')!; return video.muted && video.loop && video.playsInline }))
    t.ok(media.every((url) => /desktop/.test(url)), 'only the desktop video was fetched')
    await page.getByRole('button', { name: 'Pause background' }).click()
    t.ok(await page.evaluate(() => document.querySelector('video')!.paused), 'the background can be paused')
    t.same(problems, [])
  })

  await t.test('the layout stacks below 1024 px, narrows below 512 px, and the video follows resizes', async (t) => {
    const { page, problems } = await openPage(t, { width: 1280, height: 800 })
    await page.goto(base)
    await page.waitForSelector('video')
    // The spec's breakpoints, as media queries. The video's variant follows the resize event's
    // re-render: wait for the variant too (reading at once raced with it on a busy machine).
    const at = async (width: number) => {
      await page.setViewportSize({ width, height: 800 })
      await page.waitForFunction(([expectedWidth, mobile]) => window.innerWidth === expectedWidth &&
        (document.querySelector('video source[type="video/webm"]')?.getAttribute('src') ?? '').includes(mobile ? 'mobile' : 'desktop'),
      [width, width < 512] as const)
      return layout(page)
    }
    t.match(await at(1024), { layout: 'wide', columns: 2, cardWidth: 400 })
    t.match(await at(1023), { layout: 'stacked', columns: 1, cardWidth: 400 })
    t.match(await at(512), { layout: 'stacked', columns: 1 })
    t.match((await at(512)).video, /background-desktop-/, 'the desktop video at 512')
    const narrow = await at(511)
    t.match(narrow, { layout: 'narrow', columns: 1 })
    t.ok(narrow.cardWidth <= 400, `the form never grows past 400 px (${narrow.cardWidth} px)`)
    t.match(narrow.video, /background-mobile-/, 'the mobile video below 512')
    t.match((await at(800)).video, /background-desktop-/, 'and back')
    t.same(problems, [])
  })

  await t.test('phone: the mobile poster and video, a form that fits the screen', async (t) => {
    const { page, problems } = await openPage(t, { width: 375, height: 812 })
    await page.goto(base)
    await page.waitForSelector('video')
    const seen = await layout(page)
    t.equal(seen.layout, 'narrow')
    t.match(seen.video, /background-mobile-/)
    t.ok(seen.cardWidth <= 375 - 24, `the form narrows to fit the screen (${seen.cardWidth} px)`)
    t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375, 'nothing scrolls sideways')
    t.same(problems, [])
  })

  await t.test('under reduced motion only the poster is shown and no video is fetched', async (t) => {
    const { page, problems } = await openPage(t, { width: 1280, height: 800, reducedMotion: 'reduce' })
    const media: string[] = []
    page.on('request', (request) => { if (/\.(webm|mp4)$/.test(request.url())) media.push(request.url()) })
    await page.goto(base)
    await page.waitForLoadState('networkidle')
    const seen = await layout(page)
    t.equal(seen.video, null)
    t.match(seen.poster, /background-desktop-poster-/)
    t.same(media, [])
    t.same(problems, [])
  })

  await t.test('with Save-Data no video is fetched either', async (t) => {
    const { page, context, problems } = await openPage(t, { width: 1280, height: 800 })
    await context.addInitScript(() => {
      Object.defineProperty(navigator, 'connection', { value: { saveData: true }, configurable: true })
    })
    const media: string[] = []
    page.on('request', (request) => { if (/\.(webm|mp4)$/.test(request.url())) media.push(request.url()) })
    await page.goto(base)
    await page.waitForLoadState('networkidle')
    t.same(media, [])
    t.same(problems, [])
  })
})
