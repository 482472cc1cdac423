import { parseOrganization } from '../http/validation.js'
import type { Account, AccountStore } from '../store/account-store.js'

/** Exit codes: done; refused (no such account, not a member…); the command itself is wrong. */
export const EXIT = Object.freeze({ DONE: 0, REFUSED: 1, USAGE: 2 })

/** A refusal the operator reads, on stderr, with the exit code it ends the command with. */
export class CommandError extends Error {
  constructor (message: string, readonly exitCode: number = EXIT.REFUSED) { super(message) }
}

/** A command on the accounts store. */
export interface Command {
  readonly parameters: readonly string[]
  /** The --flags it accepts. */
  readonly flags?: readonly string[]
  /** The --options it accepts, each followed by a value and repeatable (`--redirect-uri U --redirect-uri U2`). */
  readonly options?: readonly string[]
  run (store: AccountStore, args: readonly string[], flags: ReadonlySet<string>, options: ReadonlyMap<string, readonly string[]>): Promise<string>
}

/** A command on DATA_DIR/keys rather than on the accounts store. */
export interface KeysCommand {
  readonly parameters: readonly string[]
  readonly flags?: readonly string[]
  runOnKeys (dataDir: string, args: readonly string[], flags: ReadonlySet<string>): Promise<string>
}

export async function accountFor (store: AccountStore, email: string): Promise<Account> {
  const account = await store.findAccountByEmail(email)
  if (account === null) throw new CommandError(`no account has the email ${email}`)
  return account
}

export function organizationArgument (value: string): string {
  const parsed = parseOrganization(value)
  if (!parsed.ok) throw new CommandError(parsed.error, EXIT.USAGE)
  if (parsed.value.trim() !== parsed.value) throw new CommandError('An organisation\'s name may not start or end with a space.', EXIT.USAGE)
  return parsed.value
}

/**
 * The audit line of an operator's change to sign-in, on stderr as JSON (the
 * server's audit lines are JSON too), so that a log collector keeps it.
 */
export function auditLine (event: string, details: Record<string, unknown>): void {
  console.error(JSON.stringify({ audit: event, by: 'operator', time: new Date().toISOString(), ...details }))
}
