import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CONTRACT_PATH, loadAccountsContract, type AccountsContract } from '../server/shared/accounts-contract.js'

/**
 * Finds the accounts API's OpenAPI document for the check: the one named
 * with --contract, else the repository's, looked for from this file's folder
 * upwards (conformance/ when run from the sources, dist/conformance/ when
 * built) and then from the working directory.
 */
function findContractFile (named: string | null, cwd: string = process.cwd()): string | null {
  if (named !== null) return resolve(cwd, named)
  for (let folder = dirname(fileURLToPath(import.meta.url)); ; folder = dirname(folder)) {
    if (existsSync(join(folder, CONTRACT_PATH))) return join(folder, CONTRACT_PATH)
    if (dirname(folder) === folder) break
  }
  const fromCwd = resolve(cwd, CONTRACT_PATH)
  return existsSync(fromCwd) ? fromCwd : null
}

/** The contract, or null with why when there is none to read (the page's own reading is then checked alone). */
export function contractFor (named: string | null): { contract: AccountsContract | null, note: string } {
  const path = findContractFile(named)
  if (path === null) return { contract: null, note: `${CONTRACT_PATH} was not found: answers are checked as the page reads them, not against the document` }
  try {
    const contract = loadAccountsContract(path)
    return { contract, note: `answers are also checked against ${path} (version ${contract.version})` }
  } catch (error) {
    throw new Error(`the accounts contract ${path} could not be read: ${(error as Error).message}`)
  }
}
