import { readFile } from 'node:fs/promises'
import type { BrandSettings } from '../brand/brand-config.js'
import { pageLogo, pageLook } from '../brand/brand-page.js'
import { styleHashSource } from '../brand/brand-style.js'
import { escapeHtml, inlineStyleSources } from '../page/page.js'
import type { ProviderPageLook } from './provider-page.js'

/** The build's inline CSS and icon link in the page template (build.mjs writes them into client/index.html's head). */
const PAGE_STYLE = /<style>[^<]*<\/style>/
const ICON_LINK = /<link rel="icon" [^>]*>/

/**
 * The look of the provider's pages, once at start: the page's own CSS
 * and icon as the built template has them (the operator's FAVICON in its
 * place), the page's and the brand colours' `<style>` with their CSP
 * hashes, and BRAND_LOGO as the page shows it.
 */
export async function providerPageLook (indexHtmlPath: string, brand: BrandSettings, productName: string): Promise<ProviderPageLook & { readonly styleSources: string }> {
  const template = await readFile(indexHtmlPath, 'utf8')
  const look = pageLook(brand)
  const icon = look.favicon === null
    ? template.match(ICON_LINK)?.[0] ?? '<link rel="icon" href="data:,">'
    : `<link rel="icon" href="${escapeHtml(look.favicon.href)}" type="${escapeHtml(look.favicon.type)}">`
  const pageStyle = template.match(PAGE_STYLE)?.[0] ?? ''
  // The brand style is the configuration's, checked at start (page.ts withLook refuses a "<" in it).
  const style = look.brandStyle === null || look.brandStyle.includes('<') ? '' : `<style>${look.brandStyle}</style>`
  const logo = pageLogo(brand)
  return {
    productName,
    logo: logo === null ? '' : `<img class="card__logo" src="${escapeHtml(logo.src)}" alt="${escapeHtml(logo.alt)}" width="${logo.width}" height="${logo.height}">`,
    theme: look.theme,
    headLinks: `${icon}${pageStyle}${style}`,
    styleSources: [...inlineStyleSources(pageStyle), ...(style === '' ? [] : [styleHashSource(look.brandStyle!)])].join(' ')
  }
}
