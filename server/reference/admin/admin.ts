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
import { CLIENT_COMMANDS } from './client-commands.js'

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
  client add --name <name> --redirect-uri <url> [--redirect-uri <url>…] [--public]
             [--first-party] [--post-logout-redirect-uri <url>…] [--backchannel-logout-uri <url>]
                                        add a client of the OpenID Connect provider: its id and
                                        secret are printed once (a --public client has none and
                                        uses PKCE); --first-party skips the consent step
  client list                           the clients added: id, name, type, redirect URIs
  client remove <client_id>             remove a client added here, with its grants and tokens

Accounts are read from the store the server uses: DATABASE_URL when set,
else the SQLite file in DATA_DIR (default ./data). Keys are in DATA_DIR/keys.`

const COMMANDS: Readonly<Record<string, Command>> = { ...ORGANISATION_COMMANDS, ...ACCOUNT_COMMANDS, ...SIGN_IN_COMMANDS, ...CLIENT_COMMANDS }

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

/** The command's parameters, --flags and --options (each taking the argument after it), or why they are wrong. */
function parseArguments (name: string, command: Command | KeysCommand, given: readonly string[]) {
  const rest: string[] = []
  const flags = new Set<string>()
  const options = new Map<string, string[]>()
  const takes = [
    ...command.parameters.map((parameter) => `<${parameter}>`),
    ...('options' in command ? command.options ?? [] : []).map((option) => `[${option} <value>]`),
    ...(command.flags ?? []).map((flag) => `[${flag}]`)
  ].join(' ')
  const wrong = (why: string): CommandError => new CommandError(`${why}${name} takes ${takes}\n\n${USAGE}`, EXIT.USAGE)
  for (let index = 0; index < given.length; index++) {
    const arg = given[index]!
    if (!arg.startsWith('--')) rest.push(arg)
    else if ('options' in command && (command.options ?? []).includes(arg)) {
      const value = given[++index]
      if (value === undefined || value.startsWith('--')) throw wrong(`${arg} needs a value; `)
      options.set(arg, [...options.get(arg) ?? [], value])
    } else if ((command.flags ?? []).includes(arg)) flags.add(arg)
    else throw wrong(`unknown option ${arg}; `)
  }
  if (rest.length !== command.parameters.length) throw wrong('')
  return { rest, flags, options }
}

async function main (args: readonly string[]): Promise<number> {
  exitOnUnsupportedNode()
  const [first, ...afterFirst] = args
  if (first === undefined) throw new CommandError(`no command given\n\n${USAGE}`, EXIT.USAGE)
  if (first === 'help' || first === '--help' || first === '-h') {
    console.log(USAGE)
    return EXIT.DONE
  }
  // A command of two words (`client add`) is looked up by both.
  const twoWords = afterFirst[0] !== undefined && Object.hasOwn(COMMANDS, `${first} ${afterFirst[0]}`)
  const name = twoWords ? `${first} ${afterFirst[0]!}` : first
  const given = twoWords ? afterFirst.slice(1) : afterFirst
  const command: Command | KeysCommand | undefined = Object.hasOwn(COMMANDS, name)
    ? COMMANDS[name]!
    : Object.hasOwn(KEYS_COMMANDS, name) ? KEYS_COMMANDS[name]! : undefined
  if (command === undefined) {
    const group = Object.keys(COMMANDS).some((key) => key.startsWith(`${first} `))
    throw new CommandError(`unknown command "${group ? [first, ...afterFirst.slice(0, 1)].join(' ') : first}"\n\n${USAGE}`, EXIT.USAGE)
  }
  const { rest, flags, options } = parseArguments(name, command, given)
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
    console.log(await command.run(store, rest, flags, options))
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
