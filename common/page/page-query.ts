/**
 * The parts of the page's address that its forms act on, read one way for
 * the page (client/page/page-params.ts) and for the edge when it answers a
 * form posted without scripts to the same address (server/edge/no-script/).
 */

/** Values of a parameter that may repeat or be a comma-separated list. */
export function listParameter (params: URLSearchParams, name: string): string[] {
  return params.getAll(name).flatMap((value) => value.split(',')).map((item) => item.trim()).filter((item) => item !== '')
}

/** A parameter's value, or null when it is absent or blank. */
export function nonEmpty (value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value
}

/** The views chosen by `view`. */
export type PageView = 'login' | 'register' | 'resetPassword' | 'setPassword' | 'account'

/**
 * The view `view` asks for; `setPassword` only where the accounts service
 * completes resets, anything else `login`. `account` is the signed-in
 * account's view (client/account/AccountView.tsx), which the edge serves only
 * with a session.
 */
export function viewFrom (value: string | null, passwordResetCompletion: boolean): PageView {
  if (value === 'register' || value === 'resetPassword' || value === 'account') return value
  if (value === 'setPassword' && passwordResetCompletion) return value
  return 'login'
}

/** Where to go after a login, and the context a login carries (docs/page.md, "Parameters" and "After a login"). */
export interface PageQueryContext {
  readonly redirect: string | null
  readonly allowedOrgs: readonly string[]
  readonly resourceType: string | null
  readonly clusterName: string | null
}

/** The context fields every login call carries (docs/page.md, "Parameters"): the page's calls and a form post's send the same (client/page/usePageState.ts, server/edge/no-script/). */
export function loginContextFields (context: Pick<PageQueryContext, 'allowedOrgs' | 'resourceType' | 'clusterName'>): {
  readonly insecure_allowed_orgs: readonly string[]
  readonly resource_type: string | null
  readonly cluster_name: string | null
} {
  return { insecure_allowed_orgs: context.allowedOrgs, resource_type: context.resourceType, cluster_name: context.clusterName }
}

export function pageQueryContext (params: URLSearchParams): PageQueryContext {
  return {
    redirect: nonEmpty(params.get('redirect')),
    allowedOrgs: listParameter(params, 'allowed_org'),
    resourceType: nonEmpty(params.get('resource_type')),
    clusterName: nonEmpty(params.get('cluster_name'))
  }
}

/** Whether the address asks for the domain authorization check (docs/page.md, "Parameters"). */
export const domainCheckRequested = (params: URLSearchParams): boolean => params.get('supports_domain_auth_check') === 'true'

/** The reset token of an emailed link (`view=setPassword&token=…`). */
export const resetTokenFrom = (params: URLSearchParams): string | null => nonEmpty(params.get('token'))
