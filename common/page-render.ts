/**
 * The page rendered on the server (docs/page.md, "Before its JavaScript"):
 * what the edge asks of the renderer that the client room builds
 * (client/server-render.tsx, bundled into dist/server/page-renderer.cjs), and
 * the state a form post leaves for the page to show and then hydrate.
 *
 * The edge never imports the client's components: it loads the built renderer
 * by path, typed by this interface, as it loads the page template.
 */

/** The views the page shows (the client's `View`). */
export type RenderedView = 'login' | 'register' | 'resetPassword' | 'setPassword'

/** An error or success text above the form. */
export interface RenderedNotice {
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
}

/** Id of the `<script type="application/json">` element that carries a PageFormState. */
export const PAGE_STATE_ELEMENT_ID = 'threshold-state'

/** One render: the address's query (without `?`), the host as the edge states it, and a form post's state if any. */
export interface PageRenderRequest {
  readonly search: string
  readonly hostname: string
  readonly state: PageFormState | null
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
