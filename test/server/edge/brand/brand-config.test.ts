import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'
import { BRAND_LIMITS, derivedDarkColour, SCHEME_COLOURS } from '../../../../server/edge/brand/brand-config.js'
import { contrastRatio } from '../../../../server/edge/brand/contrast.js'
import { brandFolder, pngClaiming, pngOf, SVG_LOGO } from '../../../fixtures/brand/brand-files.js'

const files = brandFolder()
const logo = files.write('logo.png', pngOf(480, 120))
const media = (name: string) => new URL(`../../../../client/brand/media/${name}`, import.meta.url).pathname

function refusal (env: Record<string, string>): ConfigError {
  try {
    loadServerConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error(`expected a configuration error for ${JSON.stringify(env)}`)
}

t.test('without brand settings: the system\'s scheme, no logo, the stylesheet\'s colours, the built-in background and icon', async (t) => {
  t.same(loadServerConfig({}).brand, { theme: 'system', logo: null, accent: { light: null, dark: null }, background: { kind: 'builtin' }, favicon: null })
})

t.test('a logo is read with its detected type, size and hash; its alt text defaults to the product name', async (t) => {
  const { brand } = loadServerConfig({ BRAND_LOGO: logo, PRODUCT_NAME: 'Acme Cloud' })
  t.match(brand.logo, { alt: 'Acme Cloud', file: { path: logo, format: 'png', contentType: 'image/png', width: 480, height: 120 } })
  t.equal(loadServerConfig({ BRAND_LOGO: logo, BRAND_LOGO_ALT: 'Acme, Inc.' }).brand.logo?.alt, 'Acme, Inc.')
  const svg = files.write('logo.svg', SVG_LOGO)
  t.match(loadServerConfig({ BRAND_LOGO: svg }).brand.logo?.file, { format: 'svg', contentType: 'image/svg+xml', width: 120, height: 40 })
})

t.test('a logo that is not a readable image of a sane size stops the start, naming BRAND_LOGO and what is wrong', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    ['a missing file', join(files.dir, 'nowhere.png'), /^BRAND_LOGO names a file that does not exist/],
    ['a folder', files.dir, /^BRAND_LOGO must name a file, not a folder/],
    ['an empty file', files.write('empty.png', ''), /^BRAND_LOGO names an empty file/],
    ['a text file', files.write('notes.txt', 'not an image at all'), /^BRAND_LOGO is not a readable image \(expected PNG, JPEG, WebP, GIF or SVG\)/],
    ['a text file renamed .png', files.write('renamed.png', 'hello, I am text pretending to be a PNG'), /^BRAND_LOGO is not a readable image/],
    ['a JPEG named .png', (() => { const path = join(files.dir, 'photo.png'); copyFileSync(media('background-desktop-poster.jpg'), path); return path })(),
      /^BRAND_LOGO holds JPEG but is named \.png: rename it \.jpg/],
    ['an ICO, which a logo may not be', files.write('logo.ico', Buffer.from('00000100010010100000010020006804000016000000', 'hex')), /^BRAND_LOGO is ICO, not PNG, JPEG, WebP, GIF or SVG/],
    ['a 20000×20000 image', files.write('huge.png', pngClaiming(20000, 20000)), /^BRAND_LOGO is 20000×20000 pixels; at most 4096×4096 is allowed/],
    ['a 1×5000 sliver', files.write('sliver.png', pngClaiming(1, 5000)), /^BRAND_LOGO is 1×5000 pixels/],
    ['too many bytes', files.write('heavy.png', Buffer.concat([pngOf(4, 4), Buffer.alloc(BRAND_LIMITS.logo.maxBytes)])), /^BRAND_LOGO is 513 KiB, larger than the 512 KiB allowed/],
    ['an SVG without a size', files.write('sizeless.svg', '<svg xmlns="http://www.w3.org/2000/svg"></svg>'), /^BRAND_LOGO is not a readable image/]
  ]
  for (const [what, path, message] of cases) {
    const error = refusal({ BRAND_LOGO: path })
    t.equal(error.variable, 'BRAND_LOGO', what)
    t.match(error.message, message, what)
  }
})

t.test('a logo that cannot be read stops the start', { skip: process.getuid?.() === 0 ? 'root reads any file' : false }, async (t) => {
  const path = files.write('locked.png', pngOf(2, 2))
  chmodSync(path, 0)
  t.match(refusal({ BRAND_LOGO: path }).message, /^BRAND_LOGO names a file that cannot be read \(EACCES\)/)
})

t.test('BRAND_LOGO_ALT needs a logo, and is one short line', async (t) => {
  t.match(refusal({ BRAND_LOGO_ALT: 'Acme' }).message, /^BRAND_LOGO_ALT is the logo's alt text; set BRAND_LOGO too/)
  t.match(refusal({ BRAND_LOGO: logo, BRAND_LOGO_ALT: 'a'.repeat(151) }).message, /^BRAND_LOGO_ALT must be one line of at most 150 characters/)
  t.match(refusal({ BRAND_LOGO: logo, BRAND_LOGO_ALT: 'Acme\u0007' }).message, /^BRAND_LOGO_ALT must be one line/)
})

t.test('THEME is light, dark or system; anything else stops the start', async (t) => {
  for (const theme of ['light', 'dark', 'system', 'DARK']) t.equal(loadServerConfig({ THEME: theme }).brand.theme, theme.toLowerCase())
  for (const bogus of ['auto', 'night', 'light;dark', '</style>']) {
    const error = refusal({ THEME: bogus })
    t.equal(error.variable, 'THEME')
    t.match(error.message, /^THEME must be light, dark or system/)
  }
})

t.test('a brand colour is #rgb or #rrggbb', async (t) => {
  t.equal(loadServerConfig({ BRAND_COLOR: '#05C', THEME: 'light' }).brand.accent.light?.accent, '#0055cc')
  for (const variable of ['BRAND_COLOR', 'BRAND_COLOR_DARK', 'BRAND_TEXT_COLOR']) {
    for (const bad of ['red', '#12345', 'rgb(0, 0, 0)', '#000;}</style>', 'var(--x)']) {
      const env = variable === 'BRAND_TEXT_COLOR' ? { BRAND_COLOR: '#1d5fa8', [variable]: bad } : { [variable]: bad }
      const error = refusal(env)
      t.equal(error.variable, variable, `${variable}=${bad}`)
      t.match(error.message, `${variable} must be a colour as #rgb or #rrggbb`)
    }
  }
})

t.test('a brand colour below WCAG AA stops the start, naming the pair, the scheme and the ratio', async (t) => {
  t.equal(refusal({ BRAND_COLOR: '#7fb2ff', THEME: 'light' }).message,
    'BRAND_COLOR #7fb2ff on the button text #ffffff (light scheme): 2.16:1, WCAG AA needs 4.5:1')
  t.equal(refusal({ BRAND_COLOR: '#ffd500', BRAND_TEXT_COLOR: '#000', THEME: 'light' }).message,
    'BRAND_COLOR #ffd500 on the card background #ffffff (light scheme): 1.42:1, WCAG AA needs 4.5:1')
  t.equal(refusal({ BRAND_COLOR: '#1d5fa8', BRAND_TEXT_COLOR: '#777777', THEME: 'light' }).message,
    'BRAND_COLOR #1d5fa8 on the button text #777777 (light scheme): 1.44:1, WCAG AA needs 4.5:1')
  t.equal(refusal({ BRAND_COLOR_DARK: '#1d5fa8', THEME: 'dark' }).message,
    'BRAND_COLOR_DARK #1d5fa8 on the button text #0b1220 (dark scheme): 2.9:1, WCAG AA needs 4.5:1')
  t.equal(refusal({ BRAND_COLOR: '#1d5fa8', BRAND_COLOR_DARK: '#3a3f47' }).variable, 'BRAND_COLOR_DARK', 'a dark colour on the dark card fails')
  t.equal(refusal({ BRAND_TEXT_COLOR: '#000000' }).message, 'BRAND_TEXT_COLOR is the text on BRAND_COLOR\'s buttons; set BRAND_COLOR too')
})

t.test('the hover colour (links\' a:hover on the card) keeps AA on the card too', async (t) => {
  // The reviewer's case: #767676 under black text passes at 4.54:1, but a 20 % shift towards white hovered at 3.15:1.
  const nearTheLimit = refusal({ BRAND_COLOR: '#767676', BRAND_TEXT_COLOR: '#000000', THEME: 'light' })
  t.equal(nearTheLimit.variable, 'BRAND_COLOR')
  t.equal(nearTheLimit.message,
    'BRAND_COLOR #767676\'s hover #919191 (links on hover) on the card background #ffffff (light scheme): 3.15:1, WCAG AA needs 4.5:1; choose a colour further from the card')
  for (const colour of ['#1d5fa8', '#0055cc', '#7a1f5c']) {
    const { light, dark } = loadServerConfig({ BRAND_COLOR: colour }).brand.accent
    t.ok(contrastRatio(light!.accentHover, SCHEME_COLOURS.light.card) >= 4.5, `${colour}: light hover on the card`)
    t.ok(contrastRatio(dark!.accentHover, SCHEME_COLOURS.dark.card) >= 4.5, `${colour}: dark hover on the dark card`)
  }
})

t.test('only the schemes THEME shows are checked', async (t) => {
  const light = loadServerConfig({ BRAND_COLOR: '#1d5fa8', THEME: 'light' }).brand.accent
  t.equal(light.dark, null, 'THEME=light: no dark scheme to check or style')
  const dark = loadServerConfig({ BRAND_COLOR_DARK: '#9cc4ff', BRAND_COLOR: '#7fb2ff', THEME: 'dark' }).brand.accent
  t.equal(dark.light, null, 'THEME=dark: BRAND_COLOR\'s light pairs never show')
  t.equal(dark.dark?.accent, '#9cc4ff')
})

t.test('without BRAND_COLOR_DARK, the dark scheme gets BRAND_COLOR lightened until it passes AA there', async (t) => {
  const { accent } = loadServerConfig({ BRAND_COLOR: '#1d5fa8' }).brand
  t.equal(accent.light?.accent, '#1d5fa8')
  t.equal(accent.light?.onAccent, '#ffffff')
  const dark = accent.dark!.accent
  t.equal(dark, derivedDarkColour('#1d5fa8'))
  t.equal(dark, '#618fc2', 'as docs/branding.md says')
  t.not(dark, '#1d5fa8')
  t.ok(contrastRatio(dark, SCHEME_COLOURS.dark.card) >= 4.5, `${dark} on the dark card`)
  t.ok(contrastRatio(dark, SCHEME_COLOURS.dark.buttonText) >= 4.5, `${dark} under the dark button text`)
  t.ok(contrastRatio(accent.light!.accentHover, '#ffffff') > contrastRatio('#1d5fa8', '#ffffff'), 'hover moves away from the button text')
  for (const colour of ['#000000', '#0b1220', '#8b0000', '#ffffff']) {
    const derived = derivedDarkColour(colour)
    t.ok(contrastRatio(derived, SCHEME_COLOURS.dark.card) >= 4.5 && contrastRatio(derived, SCHEME_COLOURS.dark.buttonText) >= 4.5, `${colour} → ${derived}`)
  }
})

t.test('the scheme colours the brand is checked against are the stylesheet\'s', async (t) => {
  const stylesheet = readFileSync(new URL('../../../../client/styles.css', import.meta.url), 'utf8')
  const root = /:root\s*\{([^}]*)\}/.exec(stylesheet)?.[1] ?? ''
  const dark = /:root\[data-theme="dark"\]\s*\{([^}]*)\}/.exec(stylesheet)?.[1] ?? ''
  const value = (block: string, name: string) => new RegExp(`${name}:\\s*(#[0-9a-f]+);`).exec(block)?.[1]
  t.equal(value(root, '--paper'), SCHEME_COLOURS.light.card)
  t.equal(value(root, '--on-accent'), SCHEME_COLOURS.light.buttonText)
  t.equal(value(dark, '--paper'), SCHEME_COLOURS.dark.card)
  t.equal(value(dark, '--on-accent'), SCHEME_COLOURS.dark.buttonText)
})

t.test('the background is the built-in video, none, or the operator\'s poster with or without a video', async (t) => {
  const poster = media('background-desktop-poster.jpg')
  t.same(loadServerConfig({ BACKGROUND: 'none' }).brand.background, { kind: 'none' })
  t.match(loadServerConfig({ BACKGROUND_POSTER: poster }).brand.background, { kind: 'operator', poster: { format: 'jpg' }, video: null })
  t.match(loadServerConfig({ BACKGROUND_POSTER: poster, BACKGROUND_VIDEO: media('background-desktop.mp4') }).brand.background,
    { kind: 'operator', video: { format: 'mp4', contentType: 'video/mp4' } })
  t.match(loadServerConfig({ BACKGROUND_POSTER: poster, BACKGROUND_VIDEO: media('background-mobile.webm') }).brand.background,
    { kind: 'operator', video: { format: 'webm', contentType: 'video/webm' } })

  t.match(refusal({ BACKGROUND: 'video' }).message, /^BACKGROUND must be none/)
  t.match(refusal({ BACKGROUND: 'none', BACKGROUND_VIDEO: media('background-desktop.mp4') }).message, /^BACKGROUND is none, but BACKGROUND_VIDEO is set too/)
  t.match(refusal({ BACKGROUND_VIDEO: media('background-desktop.mp4') }).message, /^BACKGROUND_POSTER must be set with BACKGROUND_VIDEO/)
  t.match(refusal({ BACKGROUND_POSTER: poster, BACKGROUND_VIDEO: files.write('clip.mp4', 'not a video') }).message, /^BACKGROUND_VIDEO is not a video \(expected MP4 or WebM\)/)
  const misnamed = join(files.dir, 'clip.webm')
  copyFileSync(media('background-desktop.mp4'), misnamed)
  t.match(refusal({ BACKGROUND_POSTER: poster, BACKGROUND_VIDEO: misnamed }).message, /^BACKGROUND_VIDEO holds MP4 but is named \.webm/)
  t.match(refusal({ BACKGROUND_POSTER: files.write('poster.svg', SVG_LOGO) }).message, /^BACKGROUND_POSTER is SVG, not JPEG, PNG or WebP/)
  t.match(refusal({ BACKGROUND_POSTER: files.write('poster.png', pngClaiming(20000, 20000)) }).message, /^BACKGROUND_POSTER is 20000×20000 pixels; at most 8192×8192/)
})

t.test('a favicon is a PNG, SVG or ICO of a sane size', async (t) => {
  t.match(loadServerConfig({ FAVICON: files.write('icon.png', pngOf(32, 32)) }).brand.favicon, { format: 'png', width: 32 })
  t.match(loadServerConfig({ FAVICON: media('favicon.svg') }).brand.favicon, { format: 'svg' })
  t.match(refusal({ FAVICON: media('background-mobile-poster.jpg') }).message, /^FAVICON is JPEG, not PNG, SVG or ICO/)
  t.match(refusal({ FAVICON: files.write('big-icon.png', pngClaiming(2048, 2048)) }).message, /^FAVICON is 2048×2048 pixels/)
  mkdirSync(join(files.dir, 'icons'))
  t.match(refusal({ FAVICON: join(files.dir, 'icons') }).message, /^FAVICON must name a file/)
})
