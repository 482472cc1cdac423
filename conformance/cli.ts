import { ArgumentError, parseConformanceArguments, USAGE } from './arguments.js'
import { contractFor } from './contract-file.js'
import { runSuite } from './suite.js'
import { countResults, formatTable, summaryLine } from './table.js'

/** Where the command writes, so that tests run it in-process. */
export interface CliOutput {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** The terminal's width, when it is one. */
  readonly columns?: number
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** Exit statuses: 0 no row failed, 1 a row failed, 2 the command line (or the contract file) is wrong. */
const EXIT = Object.freeze({ passed: 0, failed: 1, usage: 2 })

/** The URL as shown: without a path's secrets there are none, but never a query string (the arguments refuse one). */
const shown = (url: URL): string => `${url.origin}${url.pathname}`

/** Runs `npm run conformance -- <argv>` and answers its exit status. */
export async function runConformanceCli (argv: readonly string[], output: CliOutput): Promise<number> {
  let args
  let contract
  try {
    args = parseConformanceArguments(argv, output.env ?? {})
    if (args.help) {
      output.stdout(`${USAGE}\n`)
      return EXIT.passed
    }
    contract = contractFor(args.contractPath)
  } catch (error) {
    if (!(error instanceof ArgumentError) && !(error instanceof Error && error.message.startsWith('the accounts contract'))) throw error
    output.stderr(`conformance: ${error.message}\nRun with --help for the options.\n`)
    return EXIT.usage
  }

  const say = args.json ? output.stderr : output.stdout
  say(`Checking the accounts backend at ${shown(args.accountsUrl)} (each call within ${args.timeoutMs} ms)\n`)
  say(`The contract: ${contract.note}\n`)
  const report = await runSuite({
    accountsUrl: args.accountsUrl,
    timeoutMs: args.timeoutMs,
    account: args.account,
    contract: contract.contract,
    probe: args.probe
  }, (line) => say(`${line}\n`))
  const counts = countResults(report.rows)
  if (args.json) {
    output.stdout(`${JSON.stringify({
      passed: counts.fail === 0,
      counts,
      accountsUrl: shown(args.accountsUrl),
      throwawayAccount: report.throwawayAccount,
      contract: contract.note,
      elapsedMs: report.elapsedMs,
      budgetMs: report.budgetMs,
      rows: report.rows
    }, null, 2)}\n`)
  } else {
    output.stdout(`\n${formatTable(report.rows, output.columns ?? 160)}\n\n${summaryLine(report.rows, report.elapsedMs, report.budgetMs)}\n`)
    if (report.throwawayAccount !== null) output.stdout(`The throwaway account ${report.throwawayAccount} stays on the backend.\n`)
  }
  return counts.fail === 0 ? EXIT.passed : EXIT.failed
}
