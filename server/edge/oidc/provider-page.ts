import type { MessageKey, Messages } from '../../../common/languages/message-catalogue.js'
import type { ProviderPage, ProviderPageClient } from '../../shared/oidc/provider-pages.js'
import { escapeHtml } from '../page/page.js'

/** What each scope the provider grants means to the visitor, as the consent page words it; another shows as its name. */
const SCOPE_MEANINGS: ReadonlyMap<string, MessageKey> = new Map<string, MessageKey>([
  ['openid', 'server.oidcScope.openid'],
  ['email', 'server.oidcScope.email'],
  ['profile', 'server.oidcScope.profile'],
  ['offline_access', 'server.oidcScope.offline_access']
])

/** The longest text the edge takes from a provider page's fields: longer is not a page the provider meant. */
const MAX_FIELD_LENGTH = 2048

/** A form's `action`: a path on the page's origin, never another origin or a scheme. */
const SAME_ORIGIN_PATH = /^\/(?![/\\])[^\s"'<>]*$/

const isText = (value: unknown): value is string => typeof value === 'string' && value.length <= MAX_FIELD_LENGTH
const isTextOrNull = (value: unknown): value is string | null => value === null || isText(value)
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

function clientOf (value: unknown): ProviderPageClient | null | undefined {
  if (value === null) return null
  if (!isObject(value) || !isText(value.name) || !isTextOrNull(value.uri)) return undefined
  return { name: value.name, uri: value.uri }
}

/**
 * The provider's answer as a ProviderPage, or null when it is not one: the
 * boundary where the reference service's JSON is checked field by field,
 * so that the page shows only what the type allows (server/shared/oidc/provider-pages.ts).
 */
export function providerPageFrom (value: unknown): ProviderPage | null {
  if (!isObject(value) || !isTextOrNull(value.uiLocales)) return null
  const uiLocales = value.uiLocales
  switch (value.page) {
    case 'consent': {
      const client = clientOf(value.client)
      const account = value.account
      const scopes = value.scopes
      if (client == null || !isObject(account) || !isText(account.email) || !isText(value.action) || !SAME_ORIGIN_PATH.test(value.action)) return null
      if (!Array.isArray(scopes) || scopes.length > 32 || !scopes.every(isText)) return null
      return { page: 'consent', uiLocales, client, account: { email: account.email }, scopes, action: value.action }
    }
    case 'logout': {
      const client = clientOf(value.client)
      if (client === undefined || !isText(value.action) || !SAME_ORIGIN_PATH.test(value.action) || !isText(value.xsrf)) return null
      return { page: 'logout', uiLocales, client, action: value.action, xsrf: value.xsrf }
    }
    case 'signed-out': {
      const client = clientOf(value.client)
      if (client === undefined) return null
      return { page: 'signed-out', uiLocales, client }
    }
    case 'error':
      if (!isText(value.error) || !isTextOrNull(value.description)) return null
      return { page: 'error', uiLocales, error: value.error, description: value.description }
    default:
      return null
  }
}

/** What every provider page shares: the brand's look, the page's stylesheet and icon (read from the built page once). */
export interface ProviderPageLook {
  readonly productName: string
  /** `<html data-theme>` (THEME). */
  readonly theme: 'light' | 'dark' | 'system'
  /** The page template's CSS (its `<style>`) and `<link rel="icon">`, as the build wrote them, and the brand's `<style>` (each style allowed by its hash). */
  readonly headLinks: string
  /** BRAND_LOGO's `<img>` at the card's top, as the page shows it; '' without one. */
  readonly logo: string
}

const COLOR_SCHEMES = { light: 'light', dark: 'dark', system: 'light dark' } as const

/** Stands for a parameter in a text until it is escaped: a private-use character, which no catalogue text holds. */
const SLOT = '\uE000'
const SLOTS = new RegExp(`${SLOT}(\\d+)${SLOT}`, 'g')

/**
 * A text as HTML, each parameter escaped and isolated in `<bdi>`: a client's
 * name or an address written left to right stays whole in an Arabic sentence.
 */
function textWithNames (messages: Messages, key: MessageKey, params: Readonly<Record<string, string>>): string {
  const names = Object.keys(params)
  const slotted = messages.text(key, Object.fromEntries(names.map((name, index) => [name, `${SLOT}${index}${SLOT}`])))
  return escapeHtml(slotted).replace(SLOTS, (_slot, index: string) => `<bdi>${escapeHtml(params[names[Number(index)]!]!)}</bdi>`)
}

/** A link home to a client, only over http(s): a registered `client_uri` of another scheme is shown as text. */
function clientHome (client: ProviderPageClient, messages: Messages): string {
  if (client.uri === null || !/^https?:\/\//i.test(client.uri)) return ''
  return `<p><a href="${escapeHtml(client.uri)}">${textWithNames(messages, 'server.oidcReturnTo', { client: client.name })}</a></p>`
}

/** A page's heading as text (for the title) and as HTML, and its content. */
interface PageContent {
  readonly heading: string
  readonly headingHtml: string
  readonly body: string
}

function consentBody (page: Extract<ProviderPage, { page: 'consent' }>, messages: Messages, product: string): PageContent {
  const client = page.client.name
  const items = page.scopes.map((scope) => {
    const meaning = SCOPE_MEANINGS.get(scope)
    return `<li>${escapeHtml(meaning === undefined ? scope : messages.text(meaning))}</li>`
  }).join('')
  return {
    heading: messages.text('server.oidcConsentHeading', { client, product }),
    headingHtml: textWithNames(messages, 'server.oidcConsentHeading', { client, product }),
    body: `<p>${textWithNames(messages, 'server.oidcConsentAccount', { email: page.account.email })}</p>
<p id="oidc-scopes">${textWithNames(messages, 'server.oidcConsentScopes', { client })}</p><ul aria-labelledby="oidc-scopes">${items}</ul>
<form class="form" method="post" action="${escapeHtml(page.action)}"><div class="form__row"><button class="button button--primary" type="submit" name="decision" value="allow">${escapeHtml(messages.text('server.oidcConsentAllow'))}</button></div>
<div class="form__row"><button class="button button--secondary" type="submit" name="decision" value="deny">${escapeHtml(messages.text('server.oidcConsentDeny'))}</button></div></form>`
  }
}

function logoutBody (page: Extract<ProviderPage, { page: 'logout' }>, messages: Messages, product: string): PageContent {
  const client = page.client?.name ?? messages.text('server.oidcAnApplication')
  return {
    heading: messages.text('server.signOutHeading', { product }),
    headingHtml: escapeHtml(messages.text('server.signOutHeading', { product })),
    body: `<p>${textWithNames(messages, 'server.oidcLogoutAsked', { client, product })}</p>
<form class="form" method="post" action="${escapeHtml(page.action)}"><input type="hidden" name="xsrf" value="${escapeHtml(page.xsrf)}">
<div class="form__row"><button class="button button--primary" type="submit" name="logout" value="yes">${escapeHtml(messages.text('signedIn.signOut'))}</button></div>
<div class="form__row"><button class="button button--secondary" type="submit">${escapeHtml(messages.text('server.oidcLogoutStay'))}</button></div></form>`
  }
}

function plainHeading (text: string): Pick<PageContent, 'heading' | 'headingHtml'> {
  return { heading: text, headingHtml: escapeHtml(text) }
}

function pageContent (page: ProviderPage, messages: Messages, product: string): PageContent {
  switch (page.page) {
    case 'consent': return consentBody(page, messages, product)
    case 'logout': return logoutBody(page, messages, product)
    case 'signed-out':
      return {
        ...plainHeading(messages.text('server.oidcSignedOutHeading')),
        body: `<p>${escapeHtml(messages.text('server.oidcSignedOutText', { product }))}</p>${page.client === null ? '' : clientHome(page.client, messages)}`
      }
    case 'error':
      return {
        ...plainHeading(messages.text('server.oidcErrorHeading')),
        body: `<p>${escapeHtml(messages.text('server.oidcErrorText', { product }))}</p>
<p>${escapeHtml(messages.text('server.oidcErrorCode'))} <code>${escapeHtml(page.error)}</code></p>${page.description === null ? '' : `<p>${escapeHtml(page.description)}</p>`}
<p><a href="/">${escapeHtml(messages.text('server.oidcErrorToPage'))}</a></p>`
      }
  }
}

/**
 * A provider page as HTML: the page's brand, stylesheet and card, a heading,
 * the page's content, no script. Every text from the provider (a client's
 * name, an address, an error's description) is escaped; the forms post to
 * the provider's own paths and work by keyboard alone (plain buttons).
 */
export function renderProviderPage (page: ProviderPage, messages: Messages, look: ProviderPageLook): string {
  const { heading, headingHtml, body } = pageContent(page, messages, look.productName)
  const title = escapeHtml(messages.text('page.title', { heading, product: look.productName }))
  return `<!doctype html>
<html lang="${messages.locale}" dir="${messages.dir}" data-theme="${look.theme}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="${COLOR_SCHEMES[look.theme]}"><meta name="robots" content="noindex"><title>${title}</title>${look.headLinks}</head>
<body><div class="page"><div class="page__columns"><header class="brand"><p class="brand__name">${escapeHtml(look.productName)}</p></header>
<main class="card">${look.logo}<h1 class="card__title">${headingHtml}</h1>
${body}</main></div></div></body>
</html>
`
}
