import { escapeHtml } from '../page.js'

/** The page's one sentence, and its title. */
export const CONTINUE_TO_PROVIDER = 'Continue to your identity provider'

/**
 * The page an SSO start posted without scripts answers with, in place of a
 * 303: a meta refresh to the identity provider and a link for a browser
 * that does not follow it. The provider may be anywhere the accounts
 * service says, and `form-action`, which holds a form's redirects, names
 * only where a login may lead (security-headers.ts); a meta refresh is a
 * navigation it does not govern. The post carried only an email.
 */
export function identityProviderPage (location: string): string {
  const target = escapeHtml(location)
  return '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<meta http-equiv="refresh" content="0;url=${target}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${CONTINUE_TO_PROVIDER}</title></head>` +
    `<body><p><a href="${target}">${CONTINUE_TO_PROVIDER}</a></p></body></html>`
}
