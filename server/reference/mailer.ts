import { randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'

export interface OutgoingEmail {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** Where a sent email went: an SMTP message id, or a file in the outbox. */
export type Delivery = { readonly smtpMessageId: string } | { readonly outboxFile: string }

export interface Mailer {
  send (email: OutgoingEmail): Promise<Delivery>
}

/**
 * Sends through SMTP when SMTP_URL is set; otherwise writes each message as a
 * real RFC 5322 `.eml` file into `DATA_DIR/outbox/`, which any mail program
 * opens. Both go through nodemailer, so the outbox shows exactly what SMTP
 * would have sent.
 */
export function createMailer (options: { smtpUrl: string | null, from: string, outboxDir: string }): Mailer {
  if (options.smtpUrl !== null) {
    const transport = nodemailer.createTransport(options.smtpUrl)
    return {
      async send (email) {
        const info = await transport.sendMail({ from: options.from, ...email })
        return { smtpMessageId: String(info.messageId) }
      }
    }
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    async send (email) {
      const info = await transport.sendMail({ from: options.from, ...email })
      await mkdir(options.outboxDir, { recursive: true, mode: 0o700 })
      const file = join(options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`)
      await writeFile(file, info.message as Buffer, { mode: 0o600 })
      return { outboxFile: file }
    }
  }
}
