import type { FastifyBaseLogger } from 'fastify'
import { join } from 'node:path'
import { clockOffsetWarning } from '../../shared/shared-clock.js'
import type { ReferenceConfig } from '../config.js'
import type { AccountStore } from './account-store.js'
import type { EmailKeyConflict } from './email-key.js'
import { PostgresAccountStore } from './postgres-store.js'
import { prepareDatabaseFile } from './private-files.js'
import { SqliteAccountStore } from './sqlite-store.js'
import { describeConnectionFailure, isConnectionFailure, oncePerBurst } from './store-unavailable.js'

/** The SQLite file inside DATA_DIR. */
export function databaseFile (dataDir: string): string {
  return join(dataDir, 'accounts.sqlite')
}

/**
 * PostgreSQL when DATABASE_URL is set (several instances can share it), else
 * the embedded SQLite file in DATA_DIR (one instance). `waitForDatabase`: a
 * PostgreSQL that cannot be reached yet does not fail the opening; the store
 * keeps trying, and is not `reachable` until it succeeds (the service; the
 * admin command fails at once instead).
 */
export async function openAccountStore (
  config: ReferenceConfig,
  log: FastifyBaseLogger,
  options: { readonly waitForDatabase?: boolean } = {}
): Promise<AccountStore> {
  const logConflicts = (conflicts: readonly EmailKeyConflict[]): void => {
    for (const conflict of conflicts) {
      // Ids only: the addresses are personal data.
      log.warn({ accountId: conflict.id, keptBy: conflict.keptBy },
        'two accounts have addresses that read as one (look-alike characters or an internationalised domain): the account keptBy keeps the address, and this one can no longer sign in with it until an operator decides')
    }
  }
  if (config.databaseUrl === null) {
    prepareDatabaseFile(config.dataDir, databaseFile(config.dataDir), log)
    const store = new SqliteAccountStore(databaseFile(config.dataDir))
    logConflicts(store.emailKeyConflicts)
    return store
  }
  // A restart of PostgreSQL breaks every pooled connection at once: one line says so, not one per connection.
  const onIdleError = oncePerBurst((error: Error) => log.warn({ database: describeConnectionFailure(error) },
    'a PostgreSQL connection broke; calls fail as unavailable until new connections work'))
  const onAttemptFailed = oncePerBurst((error: Error) => {
    if (isConnectionFailure(error)) {
      log.warn({ database: describeConnectionFailure(error) }, 'PostgreSQL cannot be reached (DATABASE_URL): trying again; not ready meanwhile')
    } else {
      log.error({ err: error }, 'the accounts database cannot be migrated: trying again; not ready meanwhile')
    }
  })
  let waiting = false
  const store = await PostgresAccountStore.open({
    connectionString: config.databaseUrl,
    onIdleError,
    onClockSynced: clockOffsetWarning(log, 'the PostgreSQL server\'s (DATABASE_URL)'),
    onClockSyncFailed: oncePerBurst((error: Error) => log.warn({ database: describeConnectionFailure(error) },
      'the PostgreSQL server\'s clock could not be read (DATABASE_URL): the offset last measured stays in use until the next try')),
    ...(options.waitForDatabase === true
      ? {
          waitForDatabase: {
            onAttemptFailed: (error: Error) => { waiting = true; onAttemptFailed(error) },
            onOpened: (conflicts: readonly EmailKeyConflict[]) => {
              log.info('PostgreSQL reached and the schema migrated: accounts are stored in PostgreSQL (DATABASE_URL)')
              logConflicts(conflicts)
            }
          }
        }
      : {})
  })
  if (!waiting) {
    log.info('accounts are stored in PostgreSQL (DATABASE_URL)')
    logConflicts(store.emailKeyConflicts)
  }
  return store
}
