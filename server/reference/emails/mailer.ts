import type { FastifyBaseLogger } from 'fastify'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import type { EmailKind, EmailOutcome } from '../metrics/metrics.js'

export interface OutgoingEmail {
  /** Which of the service's emails this is, for the metrics (never sent). */
  readonly kind: EmailKind
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** Where a sent email went: an SMTP message id, or a file in the outbox. */
type Delivery = { readonly smtpMessageId: string } | { readonly outboxFile: string }

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
      async send ({ kind: _kind, ...email }) {
        const info = await transport.sendMail({ from: options.from, messageId: messageId(options.from), ...email })
        return { smtpMessageId: String(info.messageId) }
      }
    }
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    async send ({ kind: _kind, ...email }) {
      const info = await transport.sendMail({ from: options.from, messageId: messageId(options.from), ...email })
      await mkdir(options.outboxDir, { recursive: true, mode: 0o700 })
      const file = join(options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}.eml`)
      await writeFile(file, info.message as Buffer, { mode: 0o600 })
      return { outboxFile: file }
    }
  }
}

/**
 * A Message-ID of hex without dashes, at the sender's domain. Nodemailer's
 * own is a UUID, whose groups of four digits read now and then as an emailed
 * code (`2345-6789`) to whoever looks for one in the message (a mail
 * program's "copy code", the tests' outbox reader).
 */
function messageId (from: string): string {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost'
  return `<${randomBytes(16).toString('hex')}@${domain}>`
}

/**
 * The same mailer, telling `count` of each email it sent or failed to send,
 * by kind: every email of the service goes through here, so none is missed.
 */
export function countingMailer (mailer: Mailer, count: (kind: EmailKind, outcome: EmailOutcome) => void): Mailer {
  return {
    async send (email) {
      try {
        const delivery = await mailer.send(email)
        count(email.kind, 'sent')
        return delivery
      } catch (failure) {
        count(email.kind, 'failed')
        throw failure
      }
    }
  }
}

/**
 * What went wrong sending an email, without the error's message: an SMTP
 * server's reply quotes the recipient's address, which the log never holds.
 */
function describeSendFailure (failure: unknown): Record<string, unknown> {
  const { code, responseCode, command } = (failure ?? {}) as { code?: unknown, responseCode?: unknown, command?: unknown }
  return { code, responseCode, command }
}

/**
 * Runs an email's preparation and sending after the answer has gone: the
 * visitor never waits for SMTP, and the answer's timing says nothing about
 * whether there was anyone to write to. A failure is logged, never thrown.
 */
export function sendAfterAnswering (log: FastifyBaseLogger, what: string, send: () => Promise<void>): void {
  void Promise.resolve().then(send).catch((failure: unknown) => {
    log.error(describeSendFailure(failure), `the ${what} email could not be sent`)
  })
}
