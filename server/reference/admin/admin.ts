// `npm run accounts -- <command>`: an operator's command for the reference
// accounts service's data. Organisations have no page of their own, so
// memberships are managed here. It works on the store a running server uses
// (DATA_DIR's SQLite file in WAL mode, or DATABASE_URL), alongside it, and on
// the keys in DATA_DIR/keys (rotation, audit pseudonyms).
import type { FastifyBaseLogger } from 'fastify'
import { existsSync } from 'node:fs'
import { ConfigError } from '../../shared/env-parsing.js'
import { loadReferenceConfig, type ReferenceConfig } from '../config.js'
import { databaseFile, openAccountStore } from '../store/open-store.js'
import { removePasskeyAndItsSessions } from '../passkeys/passkey-removal.js'
import { isCredentialId } from '../passkeys/passkey-requests.js'
import type { Account, AccountStore, PasskeyCredential } from '../store/account-store.js'
import { parseOrganization } from '../http/validation.js'
import { loadOrCreateDerivedSecrets } from '../keys/derived-secrets.js'
import { EMAIL_PSEUDONYM_PURPOSE, EmailPseudonyms } from '../audit/email-pseudonyms.js'
import { readStoredKey, signingKeyFile } from '../keys/signing-key.js'
import { rotateSigningKey, RotationRefused } from '../keys/signing-key-rotation.js'
import { exitOnUnsupportedNode } from '../../shared/supported-node.js'

const USAGE = `Usage: npm run accounts -- <command>

Commands:
  add-member <email> <organisation> [--allow-unverified]
                                        make the account a member of the organisation; an
                                        account whose address was never verified is refused
                                        unless --allow-unverified says you checked who holds it
  remove-member <email> <organisation>  end the account's membership of the organisation
  verify-email <email>                  mark the account's address verified (you checked it)
  show <email>                          the account's details and memberships
  passkeys <email>                      the account's passkeys: id, name, created, last used, backed up
  remove-passkey <email> <passkey-id>   remove one of the account's passkeys: it no longer signs in, the
                                        sessions it started end, and the page tells the visitor's
                                        password manager to forget it
  require-second-factor <organisation>  members of the organisation must sign in with an authenticator
                                        code (those without one enrol at their next sign-in)
  allow-without-second-factor <organisation>
                                        the organisation no longer requires a second factor
  remove-second-factor <email>          remove the account's authenticator and recovery codes (an owner
                                        locked out of both); remembered browsers are forgotten too
  end-sessions <email>                  sign the account out everywhere: every refresh token is revoked
                                        (auth tokens already issued change nothing on the account from
                                        now on, and end within 15 minutes) and every browser
                                        remembered for the second factor is asked for a code again
  rotate-signing-key [--force]          a new key signs auth tokens from 7 minutes on (running
                                        servers read it within a minute); the old key stays in
                                        the key set until its last token has expired
  audit-pseudonym <email>               the name the address has in the audit log

Accounts are read from the store the server uses: DATABASE_URL when set,
else the SQLite file in DATA_DIR (default ./data). Keys are in DATA_DIR/keys.`

/** Exit codes: done; refused (no such account, not a member…); the command itself is wrong. */
const EXIT = Object.freeze({ DONE: 0, REFUSED: 1, USAGE: 2 })

class CommandError extends Error {
  constructor (message: string, readonly exitCode: number = EXIT.REFUSED) { super(message) }
}

interface Command {
  readonly parameters: readonly string[]
  /** The --flags it accepts. */
  readonly flags?: readonly string[]
  run (store: AccountStore, args: readonly string[], flags: ReadonlySet<string>): Promise<string>
}

/** A command on DATA_DIR/keys rather than on the accounts store. */
interface KeysCommand {
  readonly parameters: readonly string[]
  readonly flags?: readonly string[]
  runOnKeys (dataDir: string, args: readonly string[], flags: ReadonlySet<string>): Promise<string>
}

async function accountFor (store: AccountStore, email: string): Promise<Account> {
  const account = await store.findAccountByEmail(email)
  if (account === null) throw new CommandError(`no account has the email ${email}`)
  return account
}

function organizationArgument (value: string): string {
  const parsed = parseOrganization(value)
  if (!parsed.ok) throw new CommandError(parsed.error, EXIT.USAGE)
  if (parsed.value.trim() !== parsed.value) throw new CommandError('An organisation\'s name may not start or end with a space.', EXIT.USAGE)
  return parsed.value
}

/**
 * The audit line of an operator's change to sign-in, on stderr as JSON (the
 * server's audit lines are JSON too), so that a log collector keeps it.
 */
function auditLine (event: string, details: Record<string, unknown>): void {
  console.error(JSON.stringify({ audit: event, by: 'operator', time: new Date().toISOString(), ...details }))
}

function describe (account: Account, organizations: readonly string[], secondFactor: string): string {
  const name = [account.firstName, account.lastName].filter((part) => part !== null).join(' ')
  const rows: Array<[string, string]> = [
    ['Email', account.email],
    ['Account id', account.id],
    ['Name', name === '' ? 'none' : name],
    ['Created', new Date(account.createdAt).toISOString()],
    ['Verified', account.emailVerifiedAt === null ? 'no' : `yes, ${new Date(account.emailVerifiedAt).toISOString()}`],
    ['Password', account.passwordHash === null ? 'no' : 'yes'],
    ['Google', account.googleSubject === null ? 'no' : 'yes'],
    ['Organisations', organizations.length === 0 ? 'none' : organizations.join(', ')],
    ['Second factor', secondFactor]
  ]
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`).join('\n')
}

function describePasskeys (account: Account, passkeys: readonly PasskeyCredential[]): string {
  if (passkeys.length === 0) return `${account.email} has no passkey`
  const lines = passkeys.map((passkey) => [
    passkey.id,
    `  name: ${passkey.name ?? 'none'}`,
    `  created: ${new Date(passkey.createdAt).toISOString()}`,
    `  last used: ${passkey.lastUsedAt === null ? 'never' : new Date(passkey.lastUsedAt).toISOString()}`,
    `  synced: ${passkey.deviceType === 'multiDevice' ? (passkey.backedUp ? 'yes, backed up' : 'may be, not backed up yet') : 'no, bound to one device'}`
  ].join('\n'))
  return [`${account.email} has ${passkeys.length} passkey${passkeys.length === 1 ? '' : 's'}:`, ...lines].join('\n')
}

const KEYS_COMMANDS: Readonly<Record<string, KeysCommand>> = {
  'rotate-signing-key': {
    parameters: [],
    flags: ['--force'],
    async runOnKeys (dataDir, _args, flags) {
      try {
        const rotation = await rotateSigningKey(dataDir, Date.now(), { force: flags.has('--force') })
        return [
          `new signing key ${rotation.newKid}: in the key set now, signing auth tokens from ${new Date(rotation.signsFrom).toISOString()}`,
          `old signing key ${rotation.oldKid}: signs until then, and stays in the key set until ${new Date(rotation.oldKeyKeptUntil).toISOString()}`,
          'Running servers read the new key within a minute (or at their next start). With several instances and no',
          'shared keys/ folder, copy DATA_DIR/keys to every instance now.'
        ].join('\n')
      } catch (error) {
        if (error instanceof RotationRefused) throw new CommandError(error.message)
        throw error
      }
    }
  },
  'audit-pseudonym': {
    parameters: ['email'],
    async runOnKeys (dataDir, [email]) {
      const key = await readStoredKey(dataDir)
      if (key === null) throw new CommandError(`there is no signing key in ${signingKeyFile(dataDir)} (is DATA_DIR right?)`)
      const secrets = await loadOrCreateDerivedSecrets(dataDir, Buffer.from(String(key.jwk.d), 'base64url'))
      return new EmailPseudonyms(secrets.derive(EMAIL_PSEUDONYM_PURPOSE)).of(email!)
    }
  }
}

const COMMANDS: Readonly<Record<string, Command>> = {
  'add-member': {
    parameters: ['email', 'organisation'],
    flags: ['--allow-unverified'],
    async run (store, [email, organisation], flags) {
      const organization = organizationArgument(organisation!)
      const account = await accountFor(store, email!)
      if ((await store.listMemberships(account.id)).includes(organization)) {
        return `${account.email} is already a member of ${organization}`
      }
      // Whoever registered the address first holds an unverified account: it may not be the address's owner.
      if (account.emailVerifiedAt === null && !flags.has('--allow-unverified')) {
        throw new CommandError(`${account.email} has never been verified, so the account may not belong to the address's owner; ` +
          'ask them to verify it (the link sent at registration, or a new one from the login page), or, if you have checked ' +
          'who holds it, run verify-email first or add --allow-unverified')
      }
      await store.addMembership(account.id, organization)
      return `${account.email} is now a member of ${organization}`
    }
  },
  'remove-member': {
    parameters: ['email', 'organisation'],
    async run (store, [email, organisation]) {
      const organization = organizationArgument(organisation!)
      const account = await accountFor(store, email!)
      const memberships = await store.listMemberships(account.id)
      if (!memberships.includes(organization)) {
        const current = memberships.length === 0 ? 'no organisation' : memberships.join(', ')
        throw new CommandError(`${account.email} is not a member of ${organization} (member of: ${current})`)
      }
      await store.removeMembership(account.id, organization)
      // Auth tokens already issued keep their orgs claim until they expire.
      return `${account.email} is no longer a member of ${organization}; tokens already issued end within 15 minutes`
    }
  },
  'verify-email': {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      if (account.emailVerifiedAt !== null) return `${account.email} was verified already, on ${new Date(account.emailVerifiedAt).toISOString()}`
      await store.markEmailVerified(account.id, store.now())
      return `${account.email} is now verified`
    }
  },
  show: {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      const factor = await store.findSecondFactor(account.id)
      const required = await store.secondFactorRequiredFor(account.id)
      const secondFactor = factor?.enrolledAt != null
        ? `authenticator app since ${new Date(factor.enrolledAt).toISOString()}, ${await store.countUnusedRecoveryCodes(account.id)} recovery codes left`
        : required ? 'none, but an organisation requires one: enrolment at the next sign-in' : 'none'
      return describe(account, await store.listMemberships(account.id), secondFactor)
    }
  },
  passkeys: {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      return describePasskeys(account, await store.listPasskeys(account.id))
    }
  },
  'require-second-factor': {
    parameters: ['organisation'],
    async run (store, [organisation]) {
      const organization = organizationArgument(organisation!)
      await store.setOrganizationRequiresSecondFactor(organization, true)
      auditLine('second-factor.required', { organization })
      return `members of ${organization} now need a second factor: those without one enrol at their next password or Google sign-in`
    }
  },
  'allow-without-second-factor': {
    parameters: ['organisation'],
    async run (store, [organisation]) {
      const organization = organizationArgument(organisation!)
      await store.setOrganizationRequiresSecondFactor(organization, false)
      auditLine('second-factor.no-longer-required', { organization })
      return `${organization} no longer requires a second factor; members who enrolled one keep it`
    }
  },
  'remove-second-factor': {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      const removed = await store.removeSecondFactor(account.id)
      await store.forgetRememberedBrowsers(account.id, store.now())
      if (!removed) throw new CommandError(`${account.email} has no second factor`)
      auditLine('second-factor.removed-by-operator', { accountId: account.id })
      const required = await store.secondFactorRequiredFor(account.id)
      return `removed the authenticator app and recovery codes of ${account.email}; ` +
        (required ? 'an organisation of the account requires one: it enrols again at its next sign-in' : 'it signs in with its password alone')
    }
  },
  'end-sessions': {
    parameters: ['email'],
    async run (store, [email]) {
      const account = await accountFor(store, email!)
      const now = store.now()
      await store.revokeAccountRefreshTokens(account.id, now)
      await store.forgetRememberedBrowsers(account.id, now)
      await store.voidFreshProofs(account.id)
      await store.voidSecondFactorChallenges(account.id)
      // The browsers known for "was this you?" stay: they only spare their owner an email, and with none
      // left the next sign-in, whoever's, would count as the account's first browser and send none.
      auditLine('sessions.ended-by-operator', { accountId: account.id })
      return `ended every session of ${account.email}: its refresh tokens are revoked (auth tokens already issued change ` +
        'nothing on the account from now on, and end within 15 minutes), and browsers remembered for its second factor are asked for a code again'
    }
  },
  'remove-passkey': {
    parameters: ['email', 'passkey-id'],
    async run (store, [email, id]) {
      if (!isCredentialId(id)) throw new CommandError(`${id} is not a passkey id (base64url, as the passkeys command lists them)`, EXIT.USAGE)
      const account = await accountFor(store, email!)
      const sessionsEnded = await removePasskeyAndItsSessions(store, account.id, id, store.now())
      if (sessionsEnded === null) throw new CommandError(`${account.email} has no passkey ${id}`)
      auditLine('passkey.removed-by-operator', { accountId: account.id, sessionsEnded })
      return `removed passkey ${id} of ${account.email} and ended ${sessionsEnded} session${sessionsEnded === 1 ? '' : 's'} it started ` +
        '(auth tokens already issued end within 15 minutes); the account\'s other sessions go on'
    }
  }
}

function reportToStderr (...args: unknown[]): void {
  const message = args.find((arg) => typeof arg === 'string')
  if (message !== undefined) console.error(`accounts: ${message}`)
}

/** The store's own messages: its errors go to stderr, the rest nowhere (the command prints its result). */
const storeLog = {
  level: 'error',
  fatal: reportToStderr,
  error: reportToStderr,
  warn () {},
  info () {},
  debug () {},
  trace () {},
  silent () {},
  child () { return storeLog }
} as unknown as FastifyBaseLogger

function readConfig (): ReferenceConfig {
  try {
    return loadReferenceConfig(process.env, 8080)
  } catch (error) {
    if (error instanceof ConfigError) throw new CommandError(`invalid configuration: ${error.message}`, EXIT.USAGE)
    throw error
  }
}

async function main (args: readonly string[]): Promise<number> {
  exitOnUnsupportedNode()
  const [name, ...given] = args
  const rest = given.filter((arg) => !arg.startsWith('--'))
  const flags = new Set(given.filter((arg) => arg.startsWith('--')))
  if (name === undefined) throw new CommandError(`no command given\n\n${USAGE}`, EXIT.USAGE)
  if (name === 'help' || name === '--help' || name === '-h') {
    console.log(USAGE)
    return EXIT.DONE
  }
  const command: Command | KeysCommand | undefined = Object.hasOwn(COMMANDS, name)
    ? COMMANDS[name]!
    : Object.hasOwn(KEYS_COMMANDS, name) ? KEYS_COMMANDS[name]! : undefined
  if (command === undefined) throw new CommandError(`unknown command "${name}"\n\n${USAGE}`, EXIT.USAGE)
  const unknownFlag = [...flags].find((flag) => !(command.flags ?? []).includes(flag))
  if (rest.length !== command.parameters.length || unknownFlag !== undefined) {
    const takes = [...command.parameters.map((parameter) => `<${parameter}>`), ...(command.flags ?? []).map((flag) => `[${flag}]`)].join(' ')
    throw new CommandError(`${unknownFlag === undefined ? '' : `unknown option ${unknownFlag}; `}${name} takes ${takes}\n\n${USAGE}`, EXIT.USAGE)
  }
  const config = readConfig()
  if ('runOnKeys' in command) {
    if (!existsSync(config.dataDir)) throw new CommandError(`there is no DATA_DIR at ${config.dataDir} (is DATA_DIR right?)`)
    // A damaged key file names itself and says what to do: that message, not a stack.
    console.log(await command.runOnKeys(config.dataDir, rest, flags).catch((error: Error) => {
      throw error instanceof CommandError ? error : new CommandError(error.message)
    }))
    return EXIT.DONE
  }
  // Opening SQLite would create an empty database: a mistyped DATA_DIR must not pass for "no such account".
  if (config.databaseUrl === null && !existsSync(databaseFile(config.dataDir))) {
    throw new CommandError(`there is no accounts database in ${config.dataDir} (is DATA_DIR right?)`)
  }
  const store = await openAccountStore(config, storeLog).catch((error: Error) => {
    throw new CommandError(`the accounts database cannot be opened: ${error.message}`)
  })
  try {
    console.log(await command.run(store, rest, flags))
    return EXIT.DONE
  } finally {
    await store.close()
  }
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (error) {
  if (!(error instanceof CommandError)) throw error
  console.error(`accounts: ${error.message}`)
  process.exitCode = error.exitCode
}
