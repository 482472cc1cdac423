import { readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { OPENING_VIEWS, type Locale, type MessageKey, type Messages } from '../../../common/languages/message-catalogue.js'
import { viewFrom, type PageView } from '../../../common/page/page-query.js'
import { pageNoticeFrom, type PageNotice } from '../../../common/page/page-notices.js'
import { ACCOUNT_STATE_ELEMENT_ID, type AccountState } from '../../../common/account/account-state.js'
import { jsonForScriptElement } from '../../../common/page/json-for-script.js'
import { PAGE_STATE_ELEMENT_ID, serializePageFormState, type PageFormState, type RenderedPage } from '../../../common/page/page-render.js'
import { serializeRuntimeConfig, type RuntimeConfig } from '../../../common/page/runtime-config.js'
import type { Theme } from '../brand/brand-config.js'
import { styleHashSource } from '../brand/brand-style.js'
import type { EmbeddedTexts, MessageCatalogues } from '../languages/message-catalogues.js'
import { loadViewPreloads, NO_VIEW_PRELOADS, VIEW_PRELOAD_SLOT, type ViewPreloads } from './view-preloads.js'

/**
 * Slots that build.mjs and client/index.html leave in the page template.
 * None is a CSP nonce: the page has no inline script, and a nonce beside
 * `'self'` without `'strict-dynamic'` allowed nothing more
 * (server/edge/http/security-headers.ts), so a page's bytes are the same
 * for every visitor who asks the same, and are compressed once.
 */
const TITLE_SLOT = '__THRESHOLD_TITLE__'
/** The meta description's content: the language's `page.description`. */
const DESCRIPTION_SLOT = '__THRESHOLD_DESCRIPTION__'
const CONFIG_SLOT = '__THRESHOLD_RUNTIME_CONFIG__'
/** Inside `<div id="root">`: the rendered view. */
const ROOT_SLOT = '__THRESHOLD_ROOT__'
/** After the configuration's script: a form post's state, when the page answers one. */
const STATE_SLOT = '__THRESHOLD_STATE__'
/** Per instance, filled once at load ({@link PageLook}): `<html data-theme>`, the color-scheme meta, the brand's `<style>`. */
const THEME_SLOT = '__THRESHOLD_THEME__'
const COLOR_SCHEME_SLOT = '__THRESHOLD_COLOR_SCHEME__'
const BRAND_STYLE_SLOT = '<!--THRESHOLD:BRAND-STYLE-->'
/** The build's own icon link (build.mjs), which FAVICON replaces. */
const BUILD_FAVICON = /<link rel="icon" [^>]*>/
/** The build's `<style>` in the head: the page's CSS, inline (build/client.mjs pageStyle). */
const INLINE_STYLE = /<style>([^<]*)<\/style>/g

/**
 * The CSP sources that allow the template's inline styles, each by the hash
 * of its content as the template holds it: the page's CSS needs no stylesheet
 * request, and `style-src` still allows no other inline style.
 */
export function inlineStyleSources (template: string): string[] {
  return [...template.matchAll(INLINE_STYLE)].map((match) => styleHashSource(match[1]!))
}

/** What the operator's brand sets in the page, the same for every host and response. */
export interface PageLook {
  readonly theme: Theme
  /** FAVICON's URL and Content-Type; null: the build's icon. */
  readonly favicon: { readonly href: string, readonly type: string } | null
  /** The brand colours' CSS (server/edge/brand/brand-style.ts); null: none. */
  readonly brandStyle: string | null
}

const COLOR_SCHEMES: Readonly<Record<Theme, string>> = { light: 'light', dark: 'dark', system: 'light dark' }

/**
 * The template with the look filled in. The values are the configuration's,
 * checked at start (a theme name, hashed asset paths, `#rrggbb` colours),
 * never a request's. The style goes in as it is, byte for byte, because the
 * CSP allows it by its hash; it can hold no `<` to close its element.
 */
function withLook (template: string, look: PageLook): string {
  if (look.brandStyle?.includes('<') === true) throw new Error('the brand style must not contain "<"')
  let html = template
    .replace(THEME_SLOT, look.theme)
    .replace(COLOR_SCHEME_SLOT, COLOR_SCHEMES[look.theme])
    .replace(BRAND_STYLE_SLOT, () => look.brandStyle === null ? '' : `<style>${look.brandStyle}</style>`)
  if (look.favicon !== null) {
    const link = `<link rel="icon" href="${escapeHtml(look.favicon.href)}" type="${escapeHtml(look.favicon.type)}">`
    html = BUILD_FAVICON.test(html) ? html.replace(BUILD_FAVICON, () => link) : html.replace('</head>', () => `  ${link}\n  </head>`)
  }
  return html
}

/** The default look: the system's scheme, the build's icon, no brand colours. */
const PLAIN_LOOK: PageLook = Object.freeze({ theme: 'system', favicon: null, brandStyle: null })
/** `<html lang dir>` and the chosen language's catalogue (common/languages/message-catalogue.ts MESSAGES_ELEMENT_ID). */
const LANG_SLOT = '__THRESHOLD_LANG__'
const DIR_SLOT = '__THRESHOLD_DIR__'
const MESSAGES_SLOT = '__THRESHOLD_MESSAGES__'
const PER_RESPONSE_SLOTS = /(__THRESHOLD_TITLE__|__THRESHOLD_DESCRIPTION__|__THRESHOLD_ROOT__|__THRESHOLD_STATE__|__THRESHOLD_LANG__|__THRESHOLD_DIR__|__THRESHOLD_MESSAGES__|<!--THRESHOLD:VIEW-PRELOAD-->)/

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

/**
 * Pages prepared for this many distinct hosts are kept. Until ALLOWED_HOSTS
 * refuses foreign Host headers, the host is the visitor's to choose: beyond
 * the cap a page is prepared per request (a few microseconds), never stored,
 * so no stream of invented hosts can grow the memory. A real site has a
 * handful of names.
 */
export const MAX_CACHED_PAGE_HOSTS = 100

/** What each response fills in: its language and the view rendered for it. */
export interface PageFill {
  /** The language chosen for the request (server/shared/languages/locale-choice.ts). */
  readonly locale: Locale
  readonly rendered: RenderedPage
  /** A form post's state, embedded for the page to hydrate into (PAGE_STATE_ELEMENT_ID); null for a plain GET. */
  readonly state: PageFormState | null
  /** The address's query (without `?`): the view whose heading titles a page whose view was not rendered (heading ''). */
  readonly query: string
  /** The account view's state, embedded for the page to hydrate into (ACCOUNT_STATE_ELEMENT_ID); null or absent on every other view. */
  readonly account?: AccountState | null
}

/** The notice code the address names, if any: its text is embedded (the page shows it on its view only). */
function noticeOfQuery (query: string): PageNotice | null {
  return query.includes('notice=') ? pageNoticeFrom(new URLSearchParams(query).get('notice')) : null
}

/** The kept renderings' bytes, for as long as the rendering is kept (page-markup.ts returns the same object for a kept one). */
const renderedByteCache = new WeakMap<RenderedPage, Buffer>()

function renderedBytes (rendered: RenderedPage): Buffer {
  let bytes = renderedByteCache.get(rendered)
  if (bytes === undefined) {
    bytes = Buffer.from(rendered.html)
    renderedByteCache.set(rendered, bytes)
  }
  return bytes
}

/** The page for one host: everything but the per-response parts (language, title, rendered view, state) is filled in. */
export class PreparedPage {
  /** The template cut at its per-response slots: odd indexes are slot names. */
  private readonly pieces: readonly string[]

  /** The text pieces' UTF-8 bytes, encoded once: a page view copies them rather than encoding 8 KB of text again. */
  private readonly pieceBytes: ReadonlyArray<Buffer | null>
  /** Each language's embedded texts (with or without the later ones of a code step) as bytes, encoded on first use. */
  private readonly messagesBytes = new Map<string, Buffer>()
  /** Each language's meta description, escaped and encoded on first use. */
  private readonly descriptionBytes = new Map<Locale, Buffer>()
  private readonly passwordResetCompletion: boolean

  /**
   * `templatePieces`: the template already cut at its per-response slots
   * (odd indexes are slot names); the configuration goes into the text pieces
   * only after the cut, so no configured text (PRODUCT_NAME…) can become a slot.
   */
  constructor (templatePieces: readonly string[], config: RuntimeConfig, private readonly productName: string, private readonly catalogues: MessageCatalogues,
    private readonly viewPreloads: ViewPreloads = NO_VIEW_PRELOADS) {
    this.passwordResetCompletion = config.passwordResetCompletion
    const configJson = serializeRuntimeConfig(config)
    // A function, so that `$'`, `$&` and the like in a configured text (PRODUCT_NAME) are not replacement patterns.
    this.pieces = templatePieces.map((piece, index) => index % 2 === 0 ? piece.replace(CONFIG_SLOT, () => configJson) : piece)
    this.pieceBytes = this.pieces.map((piece, index) => index % 2 === 0 ? Buffer.from(piece) : null)
  }

  /** The page as text (tests and tools read it so); the edge sends renderBytes'. */
  render (fill: PageFill): string {
    return this.renderBytes(fill).toString()
  }

  /**
   * The page's bytes for one response. The template's pieces, the kept
   * renderings and each language's embedded texts are UTF-8 encoded once and
   * copied per response: encoding the page's 8–9 KB of text (not all ASCII)
   * on every view halved the page's throughput when the texts came in.
   */
  renderBytes (fill: PageFill): Buffer {
    const messages = this.catalogues.messages(fill.locale)
    // A refused form post is announced in the title first, as GOV.UK's pages do; the first invalid field takes focus (each view's autoFocus, as in client/sign-in/LoginView.tsx).
    const titleKey = fill.state?.notice?.kind === 'error' ? 'page.titleWithError' : 'page.title'
    // The view the page opens on, as the scripts will read it (client/start-page.tsx): its texts and its chunk's preload.
    const view = fill.state?.view ?? viewFrom(new URLSearchParams(fill.query).get('view'), this.passwordResetCompletion)
    const heading = fill.rendered.heading !== '' ? fill.rendered.heading : this.unrenderedHeading(fill, view, messages)
    const title = escapeHtml(messages.text(titleKey, { heading, product: this.productName }))
    const parts: Buffer[] = []
    for (let index = 0; index < this.pieces.length; index++) {
      const piece = this.pieces[index]!
      if (index % 2 === 0) parts.push(this.pieceBytes[index]!)
      else if (piece === TITLE_SLOT) parts.push(Buffer.from(title))
      else if (piece === DESCRIPTION_SLOT) parts.push(this.description(fill.locale, messages))
      else if (piece === ROOT_SLOT) parts.push(renderedBytes(fill.rendered))
      else if (piece === LANG_SLOT) parts.push(Buffer.from(fill.locale, 'latin1'))
      else if (piece === DIR_SLOT) parts.push(Buffer.from(messages.dir, 'latin1'))
      else if (piece === VIEW_PRELOAD_SLOT) parts.push(this.viewPreloads[view])
      else if (piece === MESSAGES_SLOT) {
        parts.push(this.embeddedMessages(fill.locale, { withLaterTexts: fill.state?.secondFactorChallenge != null || fill.state?.emailCodeSent === true, notice: noticeOfQuery(fill.query), openingView: OPENING_VIEWS.includes(view) }))
      }
      else {
        if (fill.state !== null) parts.push(Buffer.from(`\n    <script type="application/json" id="${PAGE_STATE_ELEMENT_ID}">${serializePageFormState(fill.state)}</script>`))
        if (fill.account != null) parts.push(Buffer.from(`\n    <script type="application/json" id="${ACCOUNT_STATE_ELEMENT_ID}">${jsonForScriptElement(fill.account)}</script>`))
      }
    }
    return Buffer.concat(parts)
  }

  private description (locale: Locale, messages: Messages): Buffer {
    let bytes = this.descriptionBytes.get(locale)
    if (bytes === undefined) {
      bytes = Buffer.from(escapeHtml(messages.text('page.description', { product: this.productName })))
      this.descriptionBytes.set(locale, bytes)
    }
    return bytes
  }

  private embeddedMessages (locale: Locale, embedded: EmbeddedTexts): Buffer {
    const key = `${locale}${embedded.withLaterTexts ? '+' : ''}${embedded.openingView ? '=' : ''}${embedded.notice ?? ''}`
    let bytes = this.messagesBytes.get(key)
    if (bytes === undefined) {
      bytes = Buffer.from(this.catalogues.pageMessagesJson(locale, embedded))
      this.messagesBytes.set(key, bytes)
    }
    return bytes
  }

  /** The heading of the view the scripts will render, as client/server-render.tsx words it, when the render budget left none. */
  private unrenderedHeading (fill: PageFill, view: PageView, messages: Messages): string {
    if (fill.state?.secondFactorChallenge != null) return messages.text('secondFactor.codeHeading')
    if (fill.state?.emailCodeSent === true) return messages.text('emailCode.codeHeading')
    // The account view's texts are its chunk's; the signed-in state's heading says where the visitor is.
    return messages.text(view === 'account' ? 'signedIn.heading' : `heading.${view}` satisfies MessageKey)
  }
}

/**
 * The page template, read once at start. The runtime configuration is the
 * same for every host but for the cookie domain, which follows the host the
 * browser asked for (server/edge/sessions/cookie-domain.ts); the page for a host is
 * prepared on its first request and kept, so that a page view costs the
 * rendered view (server/edge/page/page-markup.ts keeps those) and a join of bytes.
 */
export class PageTemplate {
  private readonly byHost = new Map<string, PreparedPage>()
  /** The template cut at its per-response slots, once (odd indexes are slot names). */
  private readonly templatePieces: readonly string[]

  private constructor (
    template: string,
    private readonly runtimeConfig: RuntimeConfig,
    private readonly cookieDomainOf: (hostname: string) => string | null,
    private readonly catalogues: MessageCatalogues,
    /** The page CSP's `style-src` additions: the hashes of the page's CSS and the brand's `<style>`, space-separated. */
    readonly styleSources: string,
    private readonly viewPreloads: ViewPreloads
  ) {
    this.templatePieces = template.split(PER_RESPONSE_SLOTS)
  }

  /**
   * Reads the template. `cookieDomainOf` gives the cookie domain for a host
   * name as the edge states it (canonical: lower case, without the port);
   * `catalogues` the texts of every language, the page's own serialised once each.
   * `look` (theme, favicon, brand colours) is filled in here, once. A template with the view's
   * preload slot has the build's list of each view's chunks beside it (view-preloads.ts).
   */
  static async load (
    indexHtmlPath: string,
    runtimeConfig: RuntimeConfig,
    cookieDomainOf: (hostname: string) => string | null,
    catalogues: MessageCatalogues,
    look: PageLook = PLAIN_LOOK
  ): Promise<PageTemplate> {
    const template = await readFile(indexHtmlPath, 'utf8')
    const slots = [CONFIG_SLOT, TITLE_SLOT, DESCRIPTION_SLOT, ROOT_SLOT, STATE_SLOT, LANG_SLOT, DIR_SLOT, MESSAGES_SLOT, THEME_SLOT, COLOR_SCHEME_SLOT, BRAND_STYLE_SLOT]
    if (!slots.every((slot) => template.includes(slot))) {
      throw new Error(`${indexHtmlPath} is not a Threshold page template (or one from before the page's languages, brand settings and description); run the build again`)
    }
    const viewPreloads = template.includes(VIEW_PRELOAD_SLOT) ? await loadViewPreloads(dirname(indexHtmlPath)) : NO_VIEW_PRELOADS
    // The page's CSS as the build inlined it, then the brand's colours (withLook), each allowed by its hash.
    const styleSources = [...inlineStyleSources(template), ...(look.brandStyle === null ? [] : [styleHashSource(look.brandStyle)])]
    return new PageTemplate(withLook(template, look), runtimeConfig, cookieDomainOf, catalogues, styleSources.join(' '), viewPreloads)
  }

  /** The page for a host name (as the edge states it: see server/edge/http/host-header.ts statedHostName). */
  forHost (hostname: string): PreparedPage {
    const cached = this.byHost.get(hostname)
    if (cached !== undefined) return cached
    const config = { ...this.runtimeConfig, cookieDomain: this.cookieDomainOf(hostname) }
    const page = new PreparedPage(this.templatePieces, config, this.runtimeConfig.productName, this.catalogues, this.viewPreloads)
    if (this.byHost.size < MAX_CACHED_PAGE_HOSTS) this.byHost.set(hostname, page)
    return page
  }
}
