import type { Messages } from '../../../common/languages/message-catalogue.js'
import { escapeHtml } from '../page/page.js'

/**
 * The page an SSO start posted without scripts answers with, in place of a
 * 303: a meta refresh to the identity provider and a link for a browser
 * that does not follow it, in the posted page's language
 * (server.continueToProvider, its one sentence and its title). The provider
 * may be anywhere the accounts service says, and `form-action`, which holds
 * a form's redirects, names only where a login may lead (server/edge/http/security-headers.ts);
 * a meta refresh is a navigation it does not govern. The post carried only an email.
 */
export function identityProviderPage (location: string, messages: Messages): string {
  const target = escapeHtml(location)
  const sentence = escapeHtml(messages.text('server.continueToProvider'))
  return `<!doctype html><html lang="${messages.locale}" dir="${messages.dir}"><head><meta charset="utf-8">` +
    `<meta http-equiv="refresh" content="0;url=${target}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${sentence}</title></head>` +
    `<body><p><a href="${target}">${sentence}</a></p></body></html>`
}
