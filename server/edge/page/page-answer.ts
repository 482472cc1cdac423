import type { IncomingMessage, ServerResponse } from 'node:http'
import { resolveLocalAccounts } from '../../../common/sign-in/local-accounts.js'
import type { Locale } from '../../../common/languages/message-catalogue.js'
import type { AccountState } from '../../../common/account/account-state.js'
import type { PageFormState, PageRenderer, RenderedPage } from '../../../common/page/page-render.js'
import { chooseLocale, uiLocalesOf } from '../../shared/languages/locale-choice.js'
import type { MessageCatalogues } from '../languages/message-catalogues.js'
import { UNRENDERED, type PageMarkup } from './page-markup.js'
import type { PageTemplate } from './page.js'
import { compressedForOneAnswer, identityVariant, sendPage, variantFor, type CompressedPages, type PageVariant } from './compressed-pages.js'
import { NO_STORE, pageContentSecurityPolicy, STATIC_SECURITY_HEADERS, withChallengeProviderSources } from '../http/security-headers.js'
import { pageCacheControl, REVALIDATE_PRIVATELY } from './page-caching.js'

export interface PageAnswerOptions {
  /** The page, prepared per host (its cookie domain follows the host). */
  readonly pages: PageTemplate
  /** The rendered view for a GET, kept per host and markup parameters. */
  readonly markup: PageMarkup
  /** The renderer itself, for a form post's state (never kept: it carries the visitor's email). */
  readonly renderer: PageRenderer
  readonly localAccountsAllowedHosts: readonly string[]
  /** The pages that are the same for everyone who asks the same, kept with their compressed variants. */
  readonly compressed: CompressedPages
  /** The host name the request is for, as the edge states it (server/edge/http/host-header.ts statedHostName). */
  readonly hostnameOf: (request: IncomingMessage) => string
  /** The page's `form-action` sources for a host (server/edge/http/security-headers.ts formActionSources). */
  readonly formActionFor: (hostname: string) => string
  /** The texts of every language (server/edge/languages/message-catalogues.ts). */
  readonly catalogues: MessageCatalogues
  /** DEFAULT_LOCALE. */
  readonly defaultLocale: Locale
  /** The challenge provider's origins for the page's CSP (CHALLENGE=turnstile or hcaptcha); none by default. */
  readonly challengeProviderOrigins?: string | null
  /** Whether the embedded OpenID Connect provider serves (no ACCOUNTS_URL): its logins may end at a client (returnsToProvider). */
  readonly provider?: boolean
}

/**
 * Answers with the sign-in page in the visitor's language (ui_locales in the
 * address, else Accept-Language, else DEFAULT_LOCALE): a GET or HEAD of `/`, or a form post
 * answered with the page in a state (server/edge form posts: the email kept,
 * the notice, the code step). The response is written in full on the raw
 * Node response; a Fastify route calls `reply.hijack()` first.
 */
export interface PageAnswer {
  /**
   * The page for `/?{query}` (the query without `?`): the view rendered, the page's CSP, compressed per Accept-Encoding,
   * and page-caching.ts's Cache-Control (revalidated, eligible for the back/forward cache, unless the query is personal).
   */
  page (request: IncomingMessage, response: ServerResponse, query: string): void
  /**
   * The page after a form post: the view of `state` rendered with it and the
   * state embedded for the scripts to hydrate into, with `status` (200 for a
   * refusal shown as a notice, 4xx/5xx where the post itself failed) and the
   * same headers as the page but no-store. `query` is the address the form posted to (its
   * query without `?`), which the page's links and the next post keep.
   * The account view (server/edge/account/) passes its `account` state too,
   * rendered and embedded the same way, and `state` null where no post left one.
   */
  pageWithState (request: IncomingMessage, response: ServerResponse, query: string, state: PageFormState | null, status?: number, account?: AccountState | null): RenderFailure | null
}

/** A render that threw: the page went out without its view (the scripts render it), and the caller logs it. */
interface RenderFailure {
  readonly error: unknown
}

const PAGE_HEADERS = Object.entries(STATIC_SECURITY_HEADERS)
  .filter(([name]) => name !== 'content-security-policy')
  // The language follows Accept-Language (the address's ui_locales is part of the URL already), the bytes Accept-Encoding.
  .concat([['content-type', 'text/html; charset=utf-8'], ['vary', 'Accept-Encoding, Accept-Language']])
  .flat()

/** How the embedded provider sends a visitor to the page: `redirect` back to its interaction (server/shared/oidc/provider-pages.ts OIDC_PATH_PREFIX). */
const PROVIDER_RETURN = 'redirect=%2Foidc%2Finteraction%2F'

/**
 * Whether the page's login returns to the embedded provider. A login posted
 * without scripts then ends, after the provider's own redirects, at the
 * client's registered redirect URI, on any origin, and browsers hold those
 * redirects to `form-action`: the page allows https there (the provider
 * redirects only to URIs registered exactly). Its scripts leave by a
 * navigation, which form-action does not govern.
 */
function returnsToProvider (query: string): boolean {
  return query.includes(PROVIDER_RETURN)
}

/** The page's answers (PageAnswer), over the template, the kept renderings and the renderer. */
export function createPageAnswer (options: PageAnswerOptions): PageAnswer {
  const { pages, markup, renderer, localAccountsAllowedHosts, compressed, hostnameOf, formActionFor, catalogues, defaultLocale } = options
  const providerOrigins = options.challengeProviderOrigins ?? null
  const provider = options.provider ?? false

  function localeOf (request: IncomingMessage, query: string): Locale {
    return chooseLocale({ uiLocales: uiLocalesOf(query), acceptLanguage: request.headers['accept-language'], defaultLocale, pseudoLocales: catalogues.pseudoLocales })
  }

  /** The page's bytes and its headers but Content-Length and Content-Encoding. */
  function build (query: string, cacheControl: string, hostname: string, locale: Locale, rendered: RenderedPage, state: PageFormState | null, account: AccountState | null): { body: Buffer, headers: string[] } {
    let localAccountsOrigin: string | null = null
    if (query.includes('local_accounts_host')) {
      const target = resolveLocalAccounts(new URLSearchParams(query), hostname, localAccountsAllowedHosts)
      if (target.kind === 'allowed') localAccountsOrigin = target.origin
    }
    const body = pages.forHost(hostname).renderBytes({ locale, rendered, state, query, account })
    const headers = PAGE_HEADERS.slice()
    headers.push('cache-control', cacheControl)
    const formAction = provider && returnsToProvider(query) ? `${formActionFor(hostname)} https:` : formActionFor(hostname)
    const policy = pageContentSecurityPolicy(localAccountsOrigin, formAction, pages.styleSources)
    headers.push('content-security-policy', providerOrigins === null ? policy : withChallengeProviderSources(policy, providerOrigins))
    return { body, headers }
  }

  // A render that throws (a bug, not a visitor's doing: hostile values are text) must not take the page down.
  function safely (render: () => RenderedPage): RenderedPage {
    try {
      return render()
    } catch {
      return UNRENDERED
    }
  }

  return {
    page (request, response, query) {
      const hostname = hostnameOf(request)
      const locale = localeOf(request, query)
      const acceptEncoding = request.headers['accept-encoding']
      // Everything a shared page depends on: the host (its cookie domain, form-action), the language and the whole query.
      const key = `${hostname}\n${locale}\n${query}`
      const kept = compressed.get(key)
      if (kept !== undefined) {
        sendPage(request, response, 200, variantFor(acceptEncoding, kept))
        return
      }
      const rendered = safely(() => markup.forQuery(query, hostname, catalogues.pageMessages(locale)))
      const cacheControl = pageCacheControl(query)
      const { body, headers } = build(query, cacheControl, hostname, locale, rendered, null, null)
      let answer: PageVariant
      // Kept only where the browser may keep it too: a reset token, a return's id or a parameter the page does not know stays out of memory.
      if (markup.isShared(rendered) && cacheControl === REVALIDATE_PRIVATELY) {
        const variants = compressed.keep(key, body, headers)
        answer = variants === null ? identityVariant(body, headers) : variantFor(acceptEncoding, variants)
      } else {
        // Free text is rendered per request (within page-markup.ts's budget) and never kept: its answer is the
        // visitor's own. A page left to the scripts (the budget spent) is sent as it is: a flood costs no compression.
        answer = rendered === UNRENDERED ? identityVariant(body, headers) : compressedForOneAnswer(acceptEncoding, body, headers)
      }
      sendPage(request, response, 200, answer)
    },
    pageWithState (request, response, query, state, status = 200, account = null) {
      const hostname = hostnameOf(request)
      const locale = localeOf(request, query)
      let failure: RenderFailure | null = null
      const rendered = safely(() => {
        try {
          return renderer.render({ search: query, hostname, state, messages: catalogues.pageMessages(locale), account })
        } catch (error) {
          failure = { error }
          throw error
        }
      })
      const { body, headers } = build(query, NO_STORE, hostname, locale, rendered, state, account)
      // BREACH: a body holding a secret beside text an attacker can choose (the address's query ends every
      // view link) is never compressed: the second factor's challenge, and the account view (its sessions' ids).
      // The visitor's own state (an email, a code step, the account): never kept, never restored from the back/forward cache.
      const secret = state?.secondFactorChallenge != null || account !== null
      sendPage(request, response, status, secret ? identityVariant(body, headers) : compressedForOneAnswer(request.headers['accept-encoding'], body, headers))
      return failure
    }
  }
}
