import { createHash } from 'node:crypto'
import type { BrandSettings, SchemeAccent } from './brand-config.js'

function declarations (accent: SchemeAccent): string {
  return `--accent:${accent.accent};--accent-hover:${accent.accentHover};--on-accent:${accent.onAccent}`
}

/**
 * The brand colours as CSS custom properties, for a `<style>` in the page's
 * head after the page's CSS: the same selectors as client/styles.css's
 * schemes, so that each scheme's brand colour wins over its default. Built
 * only from the validated configuration (each value a `#rrggbb`), never from
 * a request. Null when no brand colour is set.
 */
export function brandStyleSheet (brand: BrandSettings): string | null {
  const { light, dark } = brand.accent
  const rules: string[] = []
  if (light !== null) rules.push(`:root{${declarations(light)}}`)
  if (dark !== null) {
    rules.push(`:root[data-theme="dark"]{${declarations(dark)}}`)
    rules.push(`@media (prefers-color-scheme: dark){:root[data-theme="system"]{${declarations(dark)}}}`)
  }
  return rules.length === 0 ? null : rules.join('')
}

/** The CSP source that allows exactly this style element's content: `'sha256-…'`. */
export function styleHashSource (css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`
}
