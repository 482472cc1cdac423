import t from 'tap'
import { ArgumentError, parseConformanceArguments } from '../../conformance/arguments.js'
import { runConformanceCli } from '../../conformance/cli.js'

async function run (argv: string[], env: Record<string, string> = {}): Promise<{ status: number, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const status = await runConformanceCli(argv, { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text }, env })
  return { status, stdout, stderr }
}

t.test('--help prints the usage and exits 0', async (t) => {
  const { status, stdout } = await run(['--help'])
  t.equal(status, 0)
  t.match(stdout, /^Usage: npm run conformance -- --accounts-url <URL>/)
  t.match(stdout, /--timeout-ms <n>/)
  t.match(stdout, /Exit status: 0 no row failed, 1 a row failed, 2 bad arguments/)
})

t.test('bad command lines exit 2 with a message naming the option', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [[], /--accounts-url is required/],
    [['--accounts-url'], /argument missing/],
    [['--accounts-url', 'not a url'], /--accounts-url is not a URL: "not a url"/],
    [['--accounts-url', 'ftp://accounts.example.com'], /must be http or https, not ftp:/],
    [['--accounts-url', 'https://user:secret@accounts.example.com'], /must not carry credentials/],
    [['--accounts-url', 'https://accounts.example.com/?key=1'], /no query string or fragment/],
    [['--accounts-url', 'https://accounts.example.com', '--timeout-ms', 'soon'], /--timeout-ms must be a whole number of milliseconds from 100 to 120000, not "soon"/],
    [['--accounts-url', 'https://accounts.example.com', '--timeout-ms', '5'], /--timeout-ms must be/],
    [['--accounts-url', 'https://accounts.example.com', '--email', 'a@example.com'], /--email needs its password: --password/],
    [['--accounts-url', 'https://accounts.example.com', '--password', 'x'], /--password was given without --email/],
    [['--accounts-url', 'https://accounts.example.com', '--email', 'nobody', '--password', 'x'], /--email is not an email address/],
    [['--accounts-url', 'https://accounts.example.com', '--blocked-email', 'a@blocked.example'], /--blocked-email needs its password/],
    [['--accounts-url', 'https://accounts.example.com', '--google-nonce-secret', 's'], /go with --google-token/],
    [['--accounts-url', 'https://accounts.example.com', '--frobnicate'], /Unknown option '--frobnicate'/],
    [['--accounts-url', 'https://accounts.example.com', 'extra'], /positional/i],
    [['--accounts-url', 'https://accounts.example.com', '--contract', '/nowhere/contract.yaml'], /the accounts contract \/nowhere\/contract\.yaml could not be read/]
  ]
  for (const [argv, message] of cases) {
    const { status, stdout, stderr } = await run(argv)
    t.equal(status, 2, argv.join(' '))
    t.match(stderr, message)
    t.match(stderr, /Run with --help for the options\./)
    t.equal(stdout, '', 'nothing on stdout')
  }
})

t.test('passwords can come from the environment instead of the command line', async (t) => {
  const args = parseConformanceArguments(['--accounts-url', 'http://127.0.0.1:8081', '--email', 'a@example.com', '--blocked-email', 'b@blocked.example'],
    { CONFORMANCE_PASSWORD: 'from env', CONFORMANCE_BLOCKED_PASSWORD: 'blocked from env', CONFORMANCE_GOOGLE_TOKEN: 'token' })
  t.same(args.account, { email: 'a@example.com', password: 'from env' })
  t.same(args.probe.blockedAccount, { email: 'b@blocked.example', password: 'blocked from env' })
  t.equal(args.probe.googleToken, 'token')
  t.equal(args.timeoutMs, 10_000, 'the edge\'s own time limit by default')
})

t.test('argument errors are coded', async (t) => {
  t.throws(() => parseConformanceArguments([]), { name: 'ArgumentError', code: 'CONFORMANCE_BAD_ARGUMENT' })
  t.ok((() => { try { parseConformanceArguments([]) } catch (error) { return error instanceof ArgumentError } return false })())
})

t.test('--json prints one JSON object on stdout, the announcements on stderr', async (t) => {
  // Against a closed port: quick, and the JSON still lists every row.
  const { status, stdout, stderr } = await run(['--accounts-url', 'http://127.0.0.1:9', '--json', '--timeout-ms', '1000'])
  t.equal(status, 1)
  const report = JSON.parse(stdout) as { passed: boolean, counts: { fail: number }, rows: Array<{ result: string }> }
  t.equal(report.passed, false)
  t.equal(report.counts.fail, 3)
  t.ok(report.rows.length > 20)
  t.match(stderr, /registering a throwaway account/)
})
