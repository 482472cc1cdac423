import type { OutgoingEmail } from './mailer.js'
import type { EmailKind } from '../metrics/metrics.js'
import type { EmailMessages } from './email-messages.js'

/** What one email says: paragraphs, the link it exists for (if any), then more paragraphs. */
export interface EmailContent {
  readonly kind: EmailKind
  readonly to: string
  /** The language it is written in: its greeting, `<html lang dir>`. */
  readonly messages: EmailMessages
  readonly subject: string
  readonly before: readonly string[]
  /**
   * What the email exists to hand over when it is not a link (an emailed
   * code): on a line of its own in the text, large in the HTML, after `before`.
   */
  readonly highlight?: string
  readonly link?: { readonly href: string, readonly label: string }
  readonly after?: readonly string[]
}

function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

/**
 * Every email of the service in one shape, as plain text (the link written
 * out, for mail programs that show no HTML) and as simple HTML in the
 * visitor's language and direction. Texts that come from visitors (a
 * browser's name) are escaped like everything else.
 */
export function composeEmail (content: EmailContent): OutgoingEmail {
  const after = content.after ?? []
  const greeting = content.messages.text('greeting')
  const text = [
    greeting,
    ...content.before,
    ...(content.highlight === undefined ? [] : [content.highlight]),
    ...(content.link === undefined ? [] : [content.link.href]),
    ...after
  ].join('\n\n')
  const paragraphs = [
    escapeHtml(greeting),
    ...content.before.map(escapeHtml),
    // A code reads left to right whatever the language, and large enough to copy from a phone's screen.
    ...(content.highlight === undefined
      ? []
      : [`<span dir="ltr" style="font-family:monospace;font-size:2em;font-weight:bold;letter-spacing:0.15em">${escapeHtml(content.highlight)}</span>`]),
    // A link is left to right whatever the language: it is an address.
    ...(content.link === undefined ? [] : [`<a href="${escapeHtml(content.link.href)}">${escapeHtml(content.link.label)}</a>`]),
    ...after.map(escapeHtml)
  ]
  const html = `<!doctype html><html lang="${content.messages.locale}" dir="${content.messages.dir}"><body style="font-family:sans-serif;line-height:1.5">
${paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n')}
</body></html>`
  return { kind: content.kind, to: content.to, subject: content.subject, text, html }
}
