import { createHash } from 'node:crypto'
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import t from 'tap'
import { SVG_CONTENT_SECURITY_POLICY } from '../../../../server/edge/brand/brand-assets.js'
import { brandFolder, pngOf, SVG_LOGO } from '../../../fixtures/brand/brand-files.js'
import { buildEdge } from '../../../fixtures/servers/edge.js'

const files = brandFolder()
const logoPng = pngOf(480, 120)
const logo = files.write('acme-logo.png', logoPng)
const svgLogo = files.write('acme-logo.svg', SVG_LOGO)
const favicon = files.write('acme-icon.png', pngOf(32, 32))
const media = (name: string) => new URL(`../../../../client/brand/media/${name}`, import.meta.url).pathname
const IMMUTABLE = 'public, max-age=31536000, immutable'

function embeddedConfig (html: string): Record<string, unknown> {
  return JSON.parse(/<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1] ?? 'null')
}

function styleElements (html: string): string[] {
  return [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1]!)
}

function styleSrc (csp: string | undefined): string {
  return /(?:^|;)\s*style-src ([^;]*)/.exec(csp ?? '')?.[1] ?? ''
}

t.test('the logo is in the card\'s header with its alt text and the size it is shown at, served under /assets/brand/', async (t) => {
  const app = await buildEdge(t, { env: { BRAND_LOGO: logo, PRODUCT_NAME: 'Acme Cloud' } })
  const page = await app.inject({ url: '/' })
  const img = /<img class="card__logo" src="([^"]+)" alt="([^"]*)" width="(\d+)" height="(\d+)"\/?>/.exec(page.body)
  t.ok(img, 'the logo is rendered into the page')
  const [, src, alt, width, height] = img!
  t.match(src, /^\/assets\/brand\/logo-[\w]{16}\.png$/, 'a content-hashed path')
  t.equal(alt, 'Acme Cloud', 'the alt text defaults to the product name')
  t.same([width, height], ['224', '56'], '480×120 fitted into 240×56, proportions kept')
  t.match(embeddedConfig(page.body).logo, { src, alt: 'Acme Cloud', width: 224, height: 56 })
  t.ok(page.body.indexOf('<img class="card__logo"') > page.body.indexOf('<main class="card"'), 'inside the card')

  const served = await app.inject({ url: src! })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/png')
  t.equal(served.headers['x-content-type-options'], 'nosniff')
  t.equal(served.headers['cache-control'], IMMUTABLE)
  t.ok(served.rawPayload.equals(logoPng), 'the file as it is')
  const again = await app.inject({ url: src!, headers: { 'if-none-match': String(served.headers.etag) } })
  t.equal(again.statusCode, 304, 'revalidation by ETag')
})

t.test('an SVG logo is served with a policy of its own, so that opened directly it runs nothing', async (t) => {
  const app = await buildEdge(t, { env: { BRAND_LOGO: svgLogo, BRAND_LOGO_ALT: 'Acme' } })
  const page = await app.inject({ url: '/' })
  const src = /<img class="card__logo" src="([^"]+)" alt="Acme" width="120" height="40"/.exec(page.body)?.[1]
  t.match(src, /^\/assets\/brand\/logo-\w+\.svg$/)
  t.notMatch(page.body, '<svg xmlns="http://www.w3.org/2000/svg" width="120"', 'never inlined into the page: only an <img>')
  const served = await app.inject({ url: src! })
  t.equal(served.headers['content-type'], 'image/svg+xml')
  t.equal(served.headers['content-security-policy'], SVG_CONTENT_SECURITY_POLICY)
  t.match(SVG_CONTENT_SECURITY_POLICY, /default-src 'none'/)
  t.notMatch(SVG_CONTENT_SECURITY_POLICY, /script-src/, 'no script source at all: default-src \'none\' governs scripts')
  t.match(SVG_CONTENT_SECURITY_POLICY, /sandbox/)
  t.equal(served.headers['x-content-type-options'], 'nosniff')
})

t.test('the favicon replaces the build\'s icon', async (t) => {
  const app = await buildEdge(t, { env: { FAVICON: favicon } })
  const page = await app.inject({ url: '/' })
  const links = [...page.body.matchAll(/<link rel="icon" href="([^"]+)" type="([^"]+)">/g)]
  t.equal(links.length, 1, 'one icon link')
  t.match(links[0]?.[1], /^\/assets\/brand\/favicon-\w+\.png$/)
  t.equal(links[0]?.[2], 'image/png')
  const served = await app.inject({ url: links[0]![1]! })
  t.equal(served.headers['content-type'], 'image/png')
  t.equal(served.headers['cache-control'], IMMUTABLE)
})

t.test('the operator\'s poster and video are served, the video streamed with Range support', async (t) => {
  const app = await buildEdge(t, { env: { BACKGROUND_POSTER: media('background-desktop-poster.jpg'), BACKGROUND_VIDEO: media('background-desktop.webm') } })
  const page = await app.inject({ url: '/' })
  const background = embeddedConfig(page.body).background as { kind: string, poster: string, video: { src: string, type: string } }
  t.equal(background.kind, 'operator')
  t.match(background.poster, /^\/assets\/brand\/poster-\w+\.jpg$/)
  t.match(background.video, { src: /^\/assets\/brand\/video-\w+\.webm$/, type: 'video/webm' })
  t.match(page.body, `<img class="background__media" src="${background.poster}" alt=""/>`, 'the poster first, at every width')
  t.notMatch(page.body, /background-mobile-poster/, 'the built-in media are not named')

  const poster = await app.inject({ url: background.poster })
  t.equal(poster.headers['content-type'], 'image/jpeg')
  t.equal(poster.headers['x-content-type-options'], 'nosniff')
  const video = await app.inject({ url: background.video.src, headers: { range: 'bytes=0-99' } })
  t.equal(video.statusCode, 206)
  t.equal(video.headers['content-type'], 'video/webm')
  t.equal(video.headers['x-content-type-options'], 'nosniff')
  t.match(video.headers['cache-control'], /max-age=31536000/)
  t.ok(video.rawPayload.equals(readFileSync(media('background-desktop.webm')).subarray(0, 100)))
})

t.test('attack: the video replaced after start is not served under the start\'s hash name', async (t) => {
  const original = readFileSync(media('background-desktop.webm'))
  const video = files.write('replaced.webm', original)
  const app = await buildEdge(t, { env: { BACKGROUND_POSTER: media('background-desktop-poster.jpg'), BACKGROUND_VIDEO: video } })
  const { src } = (embeddedConfig((await app.inject({ url: '/' })).body).background as { video: { src: string } }).video
  t.equal((await app.inject({ url: src })).statusCode, 200, 'the checked file is served')

  // Same size, other bytes, written in place (the inode stays): the modification time gives it away.
  const forged = Buffer.from(original)
  forged.write('<script>alert(1)</script>', 200, 'latin1')
  writeFileSync(video, forged)
  const inPlace = await app.inject({ url: src })
  t.equal(inPlace.statusCode, 404, 'rewritten in place: refused')
  t.notOk(inPlace.rawPayload.includes('<script>'), 'none of the new bytes')

  // Swapped for another file by rename (a new inode), even with the original bytes and time copied.
  const other = files.write('other.webm', original)
  copyFileSync(media('background-desktop.webm'), other)
  renameSync(other, video)
  t.equal((await app.inject({ url: src, headers: { range: 'bytes=0-99' } })).statusCode, 404, 're-pointed: refused')
})

t.test('BACKGROUND=none: no video or poster in the page, and a plain background', async (t) => {
  const app = await buildEdge(t, { env: { BACKGROUND: 'none' } })
  const page = await app.inject({ url: '/' })
  t.same(embeddedConfig(page.body).background, { kind: 'none' })
  t.notMatch(page.body, /class="background/)
  t.notMatch(page.body, /<video|background-desktop/)
})

t.test('a name under /assets/brand/ that is not a configured file is not found', async (t) => {
  const app = await buildEdge(t, { env: { BRAND_LOGO: logo, BACKGROUND_POSTER: media('background-desktop-poster.jpg'), BACKGROUND_VIDEO: media('background-desktop.mp4') } })
  for (const url of ['/assets/brand/logo-AAAAAAAAAAAAAAAA.png', '/assets/brand/', '/assets/brand/acme-logo.png', '/assets/brand/background-desktop.mp4',
    '/assets/brand/..%2Fbackground-desktop.mp4', '/assets/brand/../index.html', `/assets/brand/${encodeURIComponent(logo)}`]) {
    t.equal((await app.inject({ url })).statusCode, 404, url)
  }
})

function styleHash (css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`
}

t.test('the brand colours reach the page as one <style> after the page\'s CSS, each allowed by its hash in the CSP, which keeps no unsafe-inline', async (t) => {
  const app = await buildEdge(t, { env: { BRAND_COLOR: '#0a6e4f' } })
  const plain = await buildEdge(t)
  const page = await app.inject({ url: '/' })
  const styles = styleElements(page.body)
  t.same(styles.slice(0, -1), styleElements((await plain.inject({ url: '/' })).body), 'first the page\'s own CSS, as without a brand')
  const css = styles.at(-1)!
  t.match(css, ':root{--accent:#0a6e4f;')
  t.match(css, ':root[data-theme="dark"]{--accent:#', 'a dark-scheme colour, derived')
  t.match(css, '@media (prefers-color-scheme: dark){:root[data-theme="system"]{--accent:')
  const sources = styleSrc(page.headers['content-security-policy'])
  t.same(sources.split(' ').filter((source) => source.startsWith("'sha256-")), styles.map(styleHash), 'the hash of each element\'s content, byte for byte, and no other')
  t.notMatch(sources, 'unsafe-inline')
  t.notMatch(page.body, 'rel="stylesheet"', 'no stylesheet to come after')
})

t.test('without a brand colour the only <style> is the page\'s CSS, and the CSP allows no other inline style', async (t) => {
  const app = await buildEdge(t)
  const page = await app.inject({ url: '/' })
  const styles = styleElements(page.body)
  t.equal(styles.length, 1)
  t.notMatch(styles[0], '--accent:#0a6e4f')
  const sources = styleSrc(page.headers['content-security-policy'])
  t.same(sources.split(' ').filter((source) => source.startsWith("'sha256-")), [styleHash(styles[0]!)])
  t.notMatch(sources, 'unsafe-inline')
})

t.test('nothing from the query reaches CSS: the style and its hash are the same for every request', async (t) => {
  const app = await buildEdge(t, { env: { BRAND_COLOR: '#0a6e4f', THEME: 'dark', BRAND_COLOR_DARK: '#7fd1b0' } })
  const plain = await app.inject({ url: '/' })
  const hostile = [
    '/?ui_locales=%3C%2Fstyle%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E',
    '/?redirect=https%3A%2F%2Fa.test%2F%3B%7Dbody%7Bbackground%3Ared%7D',
    '/?ui_locales=ar%3B%7D%3Aroot%7B--accent%3Ared%7D&theme=light&data-theme=light',
    '/?view=login&error=%3C%2Fstyle%3E&banner=%3B%7D'
  ]
  for (const url of hostile) {
    const page = await app.inject({ url })
    t.same(styleElements(page.body), styleElements(plain.body), url)
    t.equal(styleSrc(page.headers['content-security-policy'] as string), styleSrc(plain.headers['content-security-policy'] as string), `${url}: the same style-src`)
    t.match(page.body, 'dir="ltr" data-theme="dark">', `${url}: the theme is the configuration's`)
    t.notMatch(page.body, /<\/style><script>|--accent:red|background:red/)
  }
})

t.test('THEME sets <html data-theme> and the color-scheme meta', async (t) => {
  const expected: Record<string, string> = { light: 'light', dark: 'dark', system: 'light dark' }
  for (const theme of ['light', 'dark', 'system']) {
    const app = await buildEdge(t, { env: { THEME: theme } })
    const page = await app.inject({ url: '/' })
    t.match(page.body, `data-theme="${theme}"`, theme)
    t.match(page.body, `<meta name="color-scheme" content="${expected[theme]}">`, theme)
  }
  const unset = await (await buildEdge(t)).inject({ url: '/' })
  t.match(unset.body, 'data-theme="system"', 'system by default')
  t.notMatch(unset.body, /__THRESHOLD_/, 'no slot left unfilled')
})
