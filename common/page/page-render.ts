/**
 * The page rendered on the server (docs/page.md, "Before its JavaScript"):
 * what the edge asks of the renderer that the client room builds
 * (client/server-render.tsx, bundled into dist/server/page-renderer.cjs), and
 * the state a form post leaves for the page to show and then hydrate.
 *
 * The edge never imports the client's components: it loads the built renderer
 * by path, typed by this interface, as it loads the page template.
 */

import type { AccountState } from '../account/account-state.js'
import type { PageMessages } from '../languages/message-catalogue.js'
import { jsonForScriptElement } from './json-for-script.js'
import { viewFrom, type PageView } from './page-query.js'

/** The views the page shows (the client's `View`). */
export type RenderedView = PageView

/** An error or success text above the form. */
interface RenderedNotice {
  readonly kind: 'error' | 'success'
  readonly text: string
}

/**
 * What a form post left to show, as the page's scripts would have left it:
 * the view, the email kept, the notice, the fields marked or not, and the
 * second factor's code step when a login asked for one. Embedded in the page
 * as JSON (PAGE_STATE_ELEMENT_ID), so that the page hydrates into the same state.
 */
export interface PageFormState {
  /** The view shown; it may differ from the address's (a registration ends on the login view). */
  readonly view: RenderedView
  readonly email: string
  readonly notice: RenderedNotice | null
  readonly invalid: boolean
  /** The last login was refused because the address is not verified: the page offers a new link. */
  readonly verificationLinkOffered: boolean
  /** A login asked for a one-time code: the code step takes the card, carrying the challenge. */
  readonly secondFactorChallenge: string | null
  /**
   * An emailed code was asked for (docs/email-codes.md): the code step takes the card, for the
   * address in `email`. Without scripts, the edge answers the request's form post with it.
   */
  readonly emailCodeSent?: boolean
}

/** Id of the `<script type="application/json">` element that carries a PageFormState. */
export const PAGE_STATE_ELEMENT_ID = 'threshold-state'

/** One render: the address's query (without `?`), the host as the edge states it, and a form post's state if any. */
export interface PageRenderRequest {
  readonly search: string
  readonly hostname: string
  readonly state: PageFormState | null
  /** The chosen language and its catalogue (common/languages/message-catalogue.ts). */
  readonly messages: PageMessages
  /** The signed-in account's view's data, on `?view=account` (the edge embeds the same in ACCOUNT_STATE_ELEMENT_ID); else null. */
  readonly account: AccountState | null
}

/** What goes into the page: the markup inside `<div id="root">`, and the view's heading for `<title>`. */
export interface RenderedPage {
  readonly html: string
  readonly heading: string
}

/** The renderer the edge loads: built once per runtime configuration. */
export interface PageRenderer {
  render (request: PageRenderRequest): RenderedPage
}

/** A PageFormState as the JSON the page embeds in PAGE_STATE_ELEMENT_ID (json-for-script.ts says what is escaped). */
export function serializePageFormState (state: PageFormState): string {
  return jsonForScriptElement(state)
}

/**
 * The embedded PageFormState, or null when there is none or it is not one
 * (the page then starts from its address, as without a form post).
 */
export function parsePageFormState (text: string | null | undefined): PageFormState | null {
  let raw: Record<string, unknown> | null
  try {
    raw = JSON.parse(text ?? '') as Record<string, unknown> | null
  } catch {
    return null
  }
  // A view the address could name (viewFrom's, setPassword included): the page's first load carries no list of its own.
  if (typeof raw?.view !== 'string' || viewFrom(raw.view, true) !== raw.view || typeof raw.email !== 'string') return null
  const notice = raw.notice as Partial<RenderedNotice> | null
  const challenge = raw.secondFactorChallenge
  return {
    view: raw.view,
    email: raw.email,
    notice: (notice?.kind === 'error' || notice?.kind === 'success') && typeof notice.text === 'string' ? { kind: notice.kind, text: notice.text } : null,
    invalid: raw.invalid === true,
    verificationLinkOffered: raw.verificationLinkOffered === true,
    secondFactorChallenge: typeof challenge === 'string' && challenge !== '' ? challenge : null,
    ...(raw.emailCodeSent === true ? { emailCodeSent: true } : {})
  }
}

/**
 * The query parameters the rendered markup reads (client/page/page-params.ts:
 * the view, the texts shown, the methods offered, local-network mode, the SSO
 * return's email). Every other parameter (`redirect`, the login context,
 * `token`…) varies per visitor and reaches the markup only as the tail of the
 * links to the other views, so the edge keeps one rendering per set of these
 * and fills the tail in per request (server/edge/page/page-markup.ts).
 */
const MARKUP_PARAMETERS: ReadonlySet<string> = new Set([
  'view', 'home_page_banner', 'error', 'notice', 'login_method', 'local_accounts_host', 'local_accounts_port',
  'saml', 'oidc', 'email', 'id', 'login', 'register'
])

/** A query segment's parameter name, decoded as URLSearchParams decodes it (as written where it is not valid percent-encoding). */
export function parameterName (segment: string): string {
  const equals = segment.indexOf('=')
  const raw = (equals === -1 ? segment : segment.slice(0, equals)).replace(/\+/g, ' ')
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

/** A query's `name=value` segments, as written (not re-encoded), split into those the markup reads and the rest. */
export interface QuerySegments {
  readonly markup: readonly string[]
  readonly rest: readonly string[]
}

/** Splits a query (with or without its `?`) into MARKUP_PARAMETERS' segments and the rest, each in the query's order. */
export function splitQuery (search: string): QuerySegments {
  const markup: string[] = []
  const rest: string[] = []
  for (const segment of (search.startsWith('?') ? search.slice(1) : search).split('&')) {
    if (segment === '') continue
    if (MARKUP_PARAMETERS.has(parameterName(segment))) markup.push(segment)
    else rest.push(segment)
  }
  return { markup, rest }
}

/**
 * The address of a view's link: `/`, the view, the markup's other parameters,
 * then the rest, every segment as written. The order is fixed (not the
 * query's) so that the server can render the links once for every query with
 * the same markup and add the rest per request.
 */
export function viewLinkHref (search: string, view: RenderedView): string {
  const { markup, rest } = splitQuery(search)
  const kept = markup.filter((segment) => parameterName(segment) !== 'view')
  const query = [...(view === 'login' ? [] : [`view=${view}`]), ...kept, ...rest].join('&')
  return query === '' ? '/' : `/?${query}`
}
