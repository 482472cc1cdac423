// `npm run conformance -- --accounts-url <URL>`: the entry, built to
// dist/conformance/main.js. Everything it does is in cli.ts, which the tests
// run in-process; this file only binds it to the process.
import { runConformanceCli } from './cli.js'

runConformanceCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
  env: process.env
}).then((status) => {
  process.exitCode = status
}, (error: unknown) => {
  process.stderr.write(`conformance: the check itself failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exitCode = 1
})
