import { ConfigError, readString, type Env } from '../../shared/env-parsing.js'
import { readBrandImage, readBrandVideo, type BrandFile } from './brand-files.js'
import { contrastRatio, formatRatio, isHexColour, mixColours, normalizeHexColour, WCAG_AA_TEXT_CONTRAST } from './contrast.js'

/** THEME: which colour scheme the page uses; `system` follows the visitor's `prefers-color-scheme`. */
export type Theme = 'light' | 'dark' | 'system'
const THEMES: readonly Theme[] = ['light', 'dark', 'system']
const DEFAULT_THEME: Theme = 'system'

/**
 * The card's background and the primary button's text in each scheme, as
 * client/styles.css sets them (test/server/edge/brand/brand-config.test.ts
 * holds the two equal): the colours a brand colour must stand out from.
 */
export const SCHEME_COLOURS = Object.freeze({
  light: { card: '#ffffff', buttonText: '#ffffff' },
  dark: { card: '#19212c', buttonText: '#0b1220' }
})

/** Bounds of the operator's files: generous for any real logo or photo, far from what would hurt a page view. */
export const BRAND_LIMITS = Object.freeze({
  logo: { formats: ['png', 'jpg', 'webp', 'gif', 'svg'], maxBytes: 512 * 1024, maxPixels: 4096 },
  favicon: { formats: ['png', 'svg', 'ico'], maxBytes: 128 * 1024, maxPixels: 1024 },
  poster: { formats: ['jpg', 'png', 'webp'], maxBytes: 4 * 1024 * 1024, maxPixels: 8192 },
  video: { formats: ['mp4', 'webm'], maxBytes: 64 * 1024 * 1024 }
} as const)

/** The longest BRAND_LOGO_ALT: an image's name, not a paragraph. */
const MAX_LOGO_ALT_LENGTH = 150

/** One scheme's accent: buttons' background, links, the focused field's border. */
export interface SchemeAccent {
  readonly accent: string
  /** Hover: the accent moved further from the button text, so contrast only grows. */
  readonly accentHover: string
  readonly onAccent: string
}

/** The operator's page background (BACKGROUND, BACKGROUND_VIDEO, BACKGROUND_POSTER). */
type BackgroundSetting =
  | { readonly kind: 'builtin' }
  | { readonly kind: 'none' }
  | { readonly kind: 'operator', readonly poster: BrandFile, readonly video: BrandFile | null }

/** The brand settings, validated at start (docs/branding.md). */
export interface BrandSettings {
  readonly theme: Theme
  /** BRAND_LOGO with its alt text (BRAND_LOGO_ALT, else the product name); null: no logo. */
  readonly logo: { readonly file: BrandFile, readonly alt: string } | null
  /** Each shown scheme's accent from BRAND_COLOR, BRAND_TEXT_COLOR and BRAND_COLOR_DARK; null: the stylesheet's own. */
  readonly accent: { readonly light: SchemeAccent | null, readonly dark: SchemeAccent | null }
  readonly background: BackgroundSetting
  /** FAVICON; null: the build's own icon. */
  readonly favicon: BrandFile | null
}

function readTheme (env: Env): Theme {
  const value = readString(env, 'THEME')
  if (value === undefined) return DEFAULT_THEME
  const theme = THEMES.find((candidate) => candidate === value.toLowerCase())
  if (theme === undefined) throw new ConfigError('THEME', 'must be light, dark or system', value)
  return theme
}

function readColour (env: Env, name: string): string | undefined {
  const value = readString(env, name)
  if (value === undefined) return undefined
  if (!isHexColour(value)) throw new ConfigError(name, 'must be a colour as #rgb or #rrggbb', value)
  return normalizeHexColour(value)
}

/** Refuses a pair below WCAG AA, saying which pair and by how much. */
function requireContrast (variable: string, colour: string, against: string, what: string, scheme: string): void {
  const ratio = contrastRatio(colour, against)
  if (ratio < WCAG_AA_TEXT_CONTRAST) {
    throw new ConfigError(variable, `${colour} on ${what} ${against} (${scheme} scheme): ${formatRatio(ratio)}, WCAG AA needs ${WCAG_AA_TEXT_CONTRAST}:1`)
  }
}

const HOVER_SHIFT = 0.2

/**
 * The hover colour is also links' colour on the card (a:hover), so it must keep
 * AA there as well as under the button text. Moving away from dark button text
 * moves towards a light card: #767676 under black text passes at 4.54:1 but
 * would hover at #919191, 3.15:1 on the white card. No smaller shift helps
 * (under black text on a white card the accent's luminance has a band of about
 * 0.01 to move in), so such a colour is refused rather than given no hover.
 */
function schemeAccent (variable: string, accent: string, onAccent: string, card: string, scheme: string): SchemeAccent {
  // Away from the text: towards black under light text, towards white under dark.
  const away = contrastRatio(onAccent, '#000000') > contrastRatio(onAccent, '#ffffff') ? '#000000' : '#ffffff'
  const accentHover = mixColours(accent, away, HOVER_SHIFT)
  const ratio = contrastRatio(accentHover, card)
  if (ratio < WCAG_AA_TEXT_CONTRAST) {
    throw new ConfigError(variable, `${accent}'s hover ${accentHover} (links on hover) on the card background ${card} (${scheme} scheme): ${formatRatio(ratio)}, WCAG AA needs ${WCAG_AA_TEXT_CONTRAST}:1; choose a colour further from the card`)
  }
  return { accent, accentHover, onAccent }
}

/**
 * BRAND_COLOR_DARK when unset: BRAND_COLOR lightened in 5 % steps until it
 * reaches AA against the dark card and the dark button text. White always
 * does, so a colour is always found.
 */
export function derivedDarkColour (brandColour: string): string {
  const { card, buttonText } = SCHEME_COLOURS.dark
  for (let step = 0; step <= 20; step++) {
    const candidate = mixColours(brandColour, '#ffffff', step / 20)
    if (contrastRatio(candidate, card) >= WCAG_AA_TEXT_CONTRAST && contrastRatio(candidate, buttonText) >= WCAG_AA_TEXT_CONTRAST) return candidate
  }
  return '#ffffff'
}

function readAccent (env: Env, theme: Theme): BrandSettings['accent'] {
  const colour = readColour(env, 'BRAND_COLOR')
  const text = readColour(env, 'BRAND_TEXT_COLOR')
  const darkColour = readColour(env, 'BRAND_COLOR_DARK')
  if (text !== undefined && colour === undefined) throw new ConfigError('BRAND_TEXT_COLOR', 'is the text on BRAND_COLOR\'s buttons; set BRAND_COLOR too')
  let light: SchemeAccent | null = null
  let dark: SchemeAccent | null = null
  if (colour !== undefined && theme !== 'dark') {
    const buttonText = text ?? SCHEME_COLOURS.light.buttonText
    requireContrast('BRAND_COLOR', colour, buttonText, 'the button text', 'light')
    requireContrast('BRAND_COLOR', colour, SCHEME_COLOURS.light.card, 'the card background', 'light')
    light = schemeAccent('BRAND_COLOR', colour, buttonText, SCHEME_COLOURS.light.card, 'light')
  }
  if (theme !== 'light' && (darkColour !== undefined || colour !== undefined)) {
    const chosen = darkColour ?? derivedDarkColour(colour!)
    const { card, buttonText } = SCHEME_COLOURS.dark
    requireContrast('BRAND_COLOR_DARK', chosen, buttonText, 'the button text', 'dark')
    requireContrast('BRAND_COLOR_DARK', chosen, card, 'the card background', 'dark')
    dark = schemeAccent(darkColour === undefined ? 'BRAND_COLOR' : 'BRAND_COLOR_DARK', chosen, buttonText, card, 'dark')
  }
  return { light, dark }
}

function readLogo (env: Env, productName: string): BrandSettings['logo'] {
  const path = readString(env, 'BRAND_LOGO')
  const alt = readString(env, 'BRAND_LOGO_ALT')
  if (path === undefined) {
    if (alt !== undefined) throw new ConfigError('BRAND_LOGO_ALT', 'is the logo\'s alt text; set BRAND_LOGO too')
    return null
  }
  if (alt !== undefined && (alt.length > MAX_LOGO_ALT_LENGTH || /[\p{Cc}]/u.test(alt))) {
    throw new ConfigError('BRAND_LOGO_ALT', `must be one line of at most ${MAX_LOGO_ALT_LENGTH} characters`, alt)
  }
  return { file: readBrandImage('BRAND_LOGO', path, BRAND_LIMITS.logo), alt: alt ?? productName }
}

function readBackground (env: Env): BackgroundSetting {
  const mode = readString(env, 'BACKGROUND')
  const video = readString(env, 'BACKGROUND_VIDEO')
  const poster = readString(env, 'BACKGROUND_POSTER')
  if (mode !== undefined) {
    if (mode.toLowerCase() !== 'none') throw new ConfigError('BACKGROUND', 'must be none (or unset: the built-in video, or BACKGROUND_VIDEO and BACKGROUND_POSTER)', mode)
    if (video !== undefined || poster !== undefined) {
      throw new ConfigError('BACKGROUND', `is none, but ${video !== undefined ? 'BACKGROUND_VIDEO' : 'BACKGROUND_POSTER'} is set too; choose one`)
    }
    return { kind: 'none' }
  }
  if (video === undefined && poster === undefined) return { kind: 'builtin' }
  if (poster === undefined) {
    throw new ConfigError('BACKGROUND_POSTER', 'must be set with BACKGROUND_VIDEO: the poster shows until the video plays, and instead of it under reduced motion or Save-Data')
  }
  return {
    kind: 'operator',
    poster: readBrandImage('BACKGROUND_POSTER', poster, BRAND_LIMITS.poster),
    video: video === undefined ? null : readBrandVideo('BACKGROUND_VIDEO', video, BRAND_LIMITS.video)
  }
}

/**
 * Reads THEME and the brand variables, reading and checking each file they
 * name. Throws a {@link ConfigError} naming the first bad variable.
 */
export function readBrandSettings (env: Env, productName: string): BrandSettings {
  const theme = readTheme(env)
  const favicon = readString(env, 'FAVICON')
  return {
    theme,
    logo: readLogo(env, productName),
    accent: readAccent(env, theme),
    background: readBackground(env),
    favicon: favicon === undefined ? null : readBrandImage('FAVICON', favicon, BRAND_LIMITS.favicon)
  }
}
