import type { OutgoingEmail } from './mailer.js'

function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)
}

/** The password reset email, as plain text and as simple HTML. */
export function passwordResetEmail (options: { to: string, link: string, productName: string, validMinutes: number }): OutgoingEmail {
  const { to, link, productName, validMinutes } = options
  const subject = `Reset your ${productName} password`
  const text = [
    'Hello,',
    '',
    `Someone asked to reset the password of your ${productName} account. To choose a new password, open this link:`,
    '',
    link,
    '',
    `The link works once, within ${validMinutes} minutes. If you did not ask for this, ignore this email: your password stays as it is.`
  ].join('\n')
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Hello,</p>
<p>Someone asked to reset the password of your ${escapeHtml(productName)} account. To choose a new password, open this link:</p>
<p><a href="${escapeHtml(link)}">Choose a new password</a></p>
<p>The link works once, within ${validMinutes} minutes. If you did not ask for this, ignore this email: your password stays as it is.</p>
</body></html>`
  return { to, subject, text, html }
}
