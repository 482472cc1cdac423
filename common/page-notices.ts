/**
 * What the page and the reference accounts service must spell alike for
 * verified addresses: the `notice` codes the service's emailed links land on
 * (`/?view=<view>&notice=<code>`), each with the one view it belongs to, and
 * the reason beside a login refused because the address is not verified yet.
 */

export const PAGE_NOTICE_VIEWS = Object.freeze({
  'email-verified': 'login',
  'verify-link-invalid': 'login',
  'sessions-ended': 'setPassword',
  'end-sessions-link-invalid': 'resetPassword'
} as const)

export type PageNotice = keyof typeof PAGE_NOTICE_VIEWS

/** The page's address (path and query) that shows `notice` on its view, with other parameters before it. */
export function pageWithNotice (notice: PageNotice, parameters: Readonly<Record<string, string>> = {}): string {
  const query = [['view', PAGE_NOTICE_VIEWS[notice]], ...Object.entries(parameters), ['notice', notice]]
    .map(([name, value]) => `${name}=${encodeURIComponent(value!)}`)
  return `/?${query.join('&')}`
}

/** The `reason` of a 403 login refusal for an address not verified yet: the page then offers a new link. */
export const EMAIL_NOT_VERIFIED_REASON = 'email_not_verified'
