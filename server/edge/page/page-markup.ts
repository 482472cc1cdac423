import type { PageMessages } from '../../../common/languages/message-catalogue.js'
import { splitQuery, type PageRenderer, type RenderedPage } from '../../../common/page/page-render.js'

/**
 * Renderings kept, one per host, language and set of markup parameters, the least
 * recently used dropped beyond this: a real site sees a handful of hosts and
 * a few dozen view and method combinations, and a stream of invented ones
 * only pushes out older entries, which the next visit renders again.
 */
export const MAX_CACHED_MARKUPS = 200

/**
 * Renders not answered from the kept ones allowed per second (a token bucket
 * holding one second's worth). A render costs about 1.3 ms of the event loop,
 * where a kept one costs microseconds, and anyone can write a new query: beyond
 * this budget the page goes out with an empty root, which the scripts render
 * (client/main.tsx), so a flood of invented queries costs at most ~26% of a core.
 */
export const UNCACHED_RENDERS_PER_SECOND = 200

/**
 * The markup parameters whose values are free text shown as written (the
 * banner, the error text, the SSO return's email and id). A query with any of
 * them is rendered for its request and never kept: their values are endless,
 * and an SSO return's email is the visitor's own.
 */
const FREE_TEXT_PARAMETERS: ReadonlySet<string> = new Set(['home_page_banner', 'error', 'email', 'id'])

/**
 * Free text outside the markup parameters, which the page shows all the
 * same: `login_hint` fills the email field (client/page/page-params.ts). The
 * page's scripts read it from the address; left out of MARKUP_PARAMETERS so
 * that they carry no byte more for it.
 */
const FREE_TEXT_REST: ReadonlySet<string> = new Set(['login_hint'])

/**
 * Stands for the query's other parameters (`redirect`, the login context…)
 * in a kept rendering: common/page/page-render.ts's viewLinkHref puts them last in
 * the links to the other views, which is the only place the markup shows them.
 */
const REST_SLOT = 'threshold-rest-slot'
/** The slot as the renderer writes it in an href: after `?` or (escaped) `&`. */
const REST_SLOT_IN_HREF = /(\?|&amp;)threshold-rest-slot/

/**
 * What a render over the budget or a failed one leaves in the page: nothing,
 * and the scripts render the view (client/main.tsx). No heading either:
 * page.ts words the view's own, in the request's language.
 */
export const UNRENDERED: RenderedPage = { html: '', heading: '' }

interface KeptMarkup {
  readonly heading: string
  /** The markup cut at the slot: odd indexes are the separators before it. */
  readonly pieces: readonly string[]
  /**
   * The rendering without context parameters (the plain `GET /`), one object
   * for every such request, so that the page (page.ts) can keep its bytes.
   */
  readonly plain: RenderedPage
}

/** A query segment as the renderer reads it (`+` a space); as written if it is not valid percent-encoding. */
function decodedSegment (segment: string): string {
  const spaced = segment.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced
  }
}

function parameterName (segment: string): string {
  const equals = segment.indexOf('=')
  return decodedSegment(equals === -1 ? segment : segment.slice(0, equals))
}

export interface PageMarkupOptions {
  /** Renders not kept allowed per second (UNCACHED_RENDERS_PER_SECOND). */
  readonly rendersPerSecond?: number
  /** The clock, in milliseconds (the tests' to turn). */
  readonly now?: () => number
}

/**
 * The rendered view for a GET of the page, kept per language, per host and
 * per the parameters that shape the markup (common/page/page-render.ts MARKUP_PARAMETERS
 * but the free text), not per raw query: `redirect` and the login context
 * vary per visitor and only end the view links, which are filled in per
 * request. Free text is rendered per request, within the render budget.
 */
export class PageMarkup {
  private readonly kept = new Map<string, KeptMarkup>()
  /** The renderings made from kept ones: the same for everyone who asks the same query of the same host in the same language. */
  private readonly shared = new WeakSet<RenderedPage>()
  private readonly rendersPerSecond: number
  private readonly now: () => number
  private tokens: number
  private refilledAt: number

  constructor (private readonly renderer: PageRenderer, options: PageMarkupOptions = {}) {
    this.rendersPerSecond = options.rendersPerSecond ?? UNCACHED_RENDERS_PER_SECOND
    this.now = options.now ?? Date.now
    this.tokens = this.rendersPerSecond
    this.refilledAt = this.now()
  }

  /** How many renderings are kept (for the tests: it never passes MAX_CACHED_MARKUPS). */
  get size (): number {
    return this.kept.size
  }

  /**
   * Whether a rendering this gave is made from a kept one, and so holds no
   * free text: a page around it may be kept and shared too
   * (server/edge/page/compressed-pages.ts). A rendering of free text, or
   * none ({@link UNRENDERED}), is not.
   */
  isShared (rendered: RenderedPage): boolean {
    return this.shared.has(rendered)
  }

  /** The view for a GET of `/?{search}` (without `?`) at a host name as the edge states it, in the chosen language. */
  forQuery (search: string, hostname: string, messages: PageMessages): RenderedPage {
    const { markup, rest } = splitQuery(search)
    // Free text is rendered as it is; so is a query that spells the slot, which would be filled in too.
    if (markup.some((segment) => FREE_TEXT_PARAMETERS.has(parameterName(segment)) || decodedSegment(segment).includes(REST_SLOT)) ||
      rest.some((segment) => FREE_TEXT_REST.has(parameterName(segment)))) {
      return this.renderWithinBudget(search, hostname, messages)
    }
    const markupQuery = markup.join('&')
    const key = `${messages.locale} ${hostname} ${markupQuery}`
    let entry = this.kept.get(key)
    if (entry === undefined) {
      const rendered = this.renderWithinBudget(markupQuery === '' ? REST_SLOT : `${markupQuery}&${REST_SLOT}`, hostname, messages)
      if (rendered === UNRENDERED) return UNRENDERED
      const pieces = rendered.html.split(REST_SLOT_IN_HREF)
      entry = { heading: rendered.heading, pieces, plain: { heading: rendered.heading, html: fillRest(pieces, '') } }
      this.shared.add(entry.plain)
      if (this.kept.size >= MAX_CACHED_MARKUPS) this.kept.delete(this.kept.keys().next().value!)
    } else {
      this.kept.delete(key)
    }
    // Map keeps insertion order: set again on each use, the first key is the least recently used.
    this.kept.set(key, entry)
    if (rest.length === 0) return entry.plain
    const filled = { heading: entry.heading, html: fillRest(entry.pieces, rest.join('&')) }
    this.shared.add(filled)
    return filled
  }

  private renderWithinBudget (search: string, hostname: string, messages: PageMessages): RenderedPage {
    const now = this.now()
    this.tokens = Math.min(this.rendersPerSecond, this.tokens + (now - this.refilledAt) * this.rendersPerSecond / 1000)
    this.refilledAt = now
    if (this.tokens < 1) return UNRENDERED
    this.tokens--
    return this.renderer.render({ search, hostname, state: null, messages, account: null })
  }
}

const REACT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '"': '&quot;', "'": '&#x27;', '<': '&lt;', '>': '&gt;' }

/** Escapes an attribute value as React's server renderer does, so that a kept rendering equals a fresh one byte for byte. */
function escapeAsReact (text: string): string {
  return text.replace(/[&"'<>]/g, (character) => REACT_ESCAPES[character]!)
}

function fillRest (pieces: readonly string[], rest: string): string {
  if (pieces.length === 1) return pieces[0]!
  const escaped = rest === '' ? '' : escapeAsReact(rest)
  let html = ''
  for (let index = 0; index < pieces.length; index++) {
    if (index % 2 === 0) html += pieces[index]!
    else if (escaped !== '') html += pieces[index]! + escaped
  }
  return html
}
