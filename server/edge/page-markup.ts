import { splitQuery, type PageRenderer, type RenderedPage } from '../../common/page-render.js'

/**
 * Renderings kept, one per host and set of markup parameters. Anyone can
 * write a query (a banner, an error text), so beyond the cap a view is
 * rendered per request, never stored: no stream of invented queries or hosts
 * can grow the memory. A real site sees a handful of hosts and a few dozen
 * banner and method combinations.
 */
export const MAX_CACHED_MARKUPS = 200

/**
 * Stands for the query's other parameters (`redirect`, the login context…)
 * in a kept rendering: common/page-render.ts's viewLinkHref puts them last in
 * the links to the other views, which is the only place the markup shows them.
 */
const REST_SLOT = 'threshold-rest-slot'
/** The slot as the renderer writes it in an href: after `?` or (escaped) `&`. */
const REST_SLOT_IN_HREF = /(\?|&amp;)threshold-rest-slot/

interface KeptMarkup {
  readonly heading: string
  /** The markup cut at the slot: odd indexes are the separators before it. */
  readonly pieces: readonly string[]
}

function decodedQuery (query: string): string {
  try {
    return decodeURIComponent(query.replace(/\+/g, ' '))
  } catch {
    return query
  }
}

/**
 * The rendered view for a GET of the page, kept per host and per the
 * parameters the markup reads (common/page-render.ts MARKUP_PARAMETERS), not
 * per raw query: `redirect` and the login context vary per visitor and only
 * end the view links, which are filled in per request.
 */
export class PageMarkup {
  private readonly kept = new Map<string, KeptMarkup>()

  constructor (private readonly renderer: PageRenderer) {}

  /** How many renderings are kept (for the tests: it never passes MAX_CACHED_MARKUPS). */
  get size (): number {
    return this.kept.size
  }

  /** The view for a GET of `/?{search}` (without `?`) at a host name as the edge states it. */
  forQuery (search: string, hostname: string): RenderedPage {
    const { markup, rest } = splitQuery(search)
    const markupQuery = markup.join('&')
    // A text that spells the slot would be filled in too: such a query is rendered as it is.
    if (decodedQuery(markupQuery).includes(REST_SLOT)) return this.renderer.render({ search, hostname, state: null })
    const key = `${hostname} ${markupQuery}`
    let entry = this.kept.get(key)
    if (entry === undefined) {
      const rendered = this.renderer.render({ search: markupQuery === '' ? REST_SLOT : `${markupQuery}&${REST_SLOT}`, hostname, state: null })
      entry = { heading: rendered.heading, pieces: rendered.html.split(REST_SLOT_IN_HREF) }
      if (this.kept.size < MAX_CACHED_MARKUPS) this.kept.set(key, entry)
    }
    return { heading: entry.heading, html: fillRest(entry.pieces, rest.join('&')) }
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
