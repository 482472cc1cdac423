import type { PageBackground, PageLogo } from '../../../common/page/runtime-config.js'
import type { PageLook } from '../page/page.js'
import { brandAssetUrl } from './brand-assets.js'
import type { BrandSettings } from './brand-config.js'
import { brandStyleSheet } from './brand-style.js'

/** The box the logo is fitted into, in CSS pixels: a header's mark, never a banner. */
const LOGO_BOX = Object.freeze({ width: 240, height: 56 })

/** The logo's shown size: its own, scaled down (never up) to fit {@link LOGO_BOX}, its proportions kept. */
function logoDisplaySize (width: number, height: number): { width: number, height: number } {
  const scale = Math.min(1, LOGO_BOX.width / width, LOGO_BOX.height / height)
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) }
}

/** The logo as the page's runtime configuration names it. */
export function pageLogo (brand: BrandSettings): PageLogo | null {
  if (brand.logo === null) return null
  const { file, alt } = brand.logo
  return { src: brandAssetUrl('logo', file), alt, ...logoDisplaySize(file.width, file.height) }
}

/** The background as the page's runtime configuration names it. */
export function pageBackground (brand: BrandSettings): PageBackground {
  const { background } = brand
  if (background.kind !== 'operator') return background
  const { poster, video } = background
  return {
    kind: 'operator',
    poster: brandAssetUrl('poster', poster),
    video: video === null ? null : { src: brandAssetUrl('video', video), type: video.contentType }
  }
}

/** What the template is filled with once at start: theme, favicon, brand colours. */
export function pageLook (brand: BrandSettings): PageLook {
  return {
    theme: brand.theme,
    favicon: brand.favicon === null ? null : { href: brandAssetUrl('favicon', brand.favicon), type: brand.favicon.contentType },
    brandStyle: brandStyleSheet(brand)
  }
}
