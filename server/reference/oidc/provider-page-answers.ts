import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider'
import { PROVIDER_PAGE_TYPE, type ProviderPage, type ProviderPageClient } from '../../shared/oidc/provider-pages.js'

/** The client a page names, when the request named one. */
function pageClient (client: { clientName?: string | undefined, clientId: string, clientUri?: string | undefined } | undefined): ProviderPageClient | null {
  return client === undefined ? null : { name: client.clientName ?? client.clientId, uri: client.clientUri ?? null }
}

/** The request's `ui_locales`, when it had them: the edge prefers them to Accept-Language. */
function uiLocales (ctx: KoaContextWithOIDC): string | null {
  const value = ctx.oidc?.params?.ui_locales
  return typeof value === 'string' && value.length <= 200 ? value : null
}

/** Answers a page as the JSON the edge renders: never markup from here. */
function answerPage (ctx: KoaContextWithOIDC, status: number, page: ProviderPage): void {
  ctx.status = status
  ctx.type = PROVIDER_PAGE_TYPE
  ctx.body = JSON.stringify(page)
}

/** The `value` of the hidden `xsrf` input of oidc-provider's logout form. */
function formXsrf (form: string): string {
  return /name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? ''
}

/** rpInitiatedLogout.logoutSource: the confirmation, whose form posts to session/end/confirm. */
export function logoutSource (ctx: KoaContextWithOIDC, form: string): void {
  answerPage(ctx, 200, {
    page: 'logout',
    uiLocales: uiLocales(ctx),
    client: pageClient(ctx.oidc.client),
    action: new URL(ctx.oidc.urlFor('end_session_confirm')).pathname,
    xsrf: formXsrf(form)
  })
}

/** rpInitiatedLogout.postLogoutSuccessSource: signed out, where the client named no return address. */
export function postLogoutSuccessSource (ctx: KoaContextWithOIDC): void {
  answerPage(ctx, 200, { page: 'signed-out', uiLocales: uiLocales(ctx), client: pageClient(ctx.oidc.client) })
}

/** renderError: an error the provider cannot send back to a client; its code and description, never a stack. */
export function renderError (ctx: KoaContextWithOIDC, out: ErrorOut): void {
  answerPage(ctx, ctx.status >= 400 ? ctx.status : 400, {
    page: 'error', uiLocales: uiLocales(ctx), error: out.error, description: out.error_description ?? null
  })
}
