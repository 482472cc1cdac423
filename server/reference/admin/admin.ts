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
import { exitOnUnsupportedNode } from '../../shared/supported-node.js'
import { ACCOUNT_COMMANDS } from './account-commands.js'
import { CommandError, EXIT, type Command, type KeysCommand } from './command.js'
import { KEYS_COMMANDS } from './key-commands.js'
import { ORGANISATION_COMMANDS } from './organisation-commands.js'
import { SIGN_IN_COMMANDS } from './sign-in-commands.js'

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

const COMMANDS: Readonly<Record<string, Command>> = { ...ORGANISATION_COMMANDS, ...ACCOUNT_COMMANDS, ...SIGN_IN_COMMANDS }

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
