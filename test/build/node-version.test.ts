// One Node major for the image, CI and the npm scripts: the Dockerfile names
// it, .ci/run reads it from there, and package.json's `node` devDependency
// (the Node every npm script runs) must agree.
import { readFileSync } from 'node:fs'
import t from 'tap'

const ROOT = new URL('../../', import.meta.url)
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8')

const dockerMajor = /^ARG NODE_VERSION=(\d+)$/m.exec(read('Dockerfile'))?.[1]
const packageJson = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }

t.test('the Dockerfile names one Node major, which .ci/run reads', async (t) => {
  t.ok(dockerMajor, 'ARG NODE_VERSION=<major> in the Dockerfile')
  t.match(read('.ci/run'), /sed -nE 's\/\^ARG NODE_VERSION=/, '.ci/run takes the major from the Dockerfile')
})

t.test('npm scripts run the same Node major as the image', async (t) => {
  t.equal(/^\^?(\d+)\./.exec(packageJson.devDependencies.node ?? '')?.[1], dockerMajor)
  t.equal(process.versions.node.split('.')[0], dockerMajor, 'this suite runs on it')
})

t.test('the image builds from every folder the build reads', async (t) => {
  const dockerfile = read('Dockerfile')
  // build.mjs's SOURCES: what decides whether dist/ is stale is what the build reads.
  const sources = /const SOURCES = \[([^\]]*)\]/.exec(read('build.mjs'))?.[1]?.match(/'[^']+'/g)?.map((name) => name.slice(1, -1)) ?? []
  const folders = sources.filter((name) => !name.includes('.'))
  t.ok(folders.length >= 4, `the build reads ${folders.join(', ')}`)
  for (const folder of folders) {
    t.match(dockerfile, new RegExp(`^COPY ${folder} ${folder}$`, 'm'), `COPY ${folder}`)
  }
  // A single file the build reads from a folder it does not copy whole (the accounts contract, for the conformance check).
  for (const file of sources.filter((name) => name.includes('/'))) {
    t.match(dockerfile, new RegExp(`^COPY ${file.replace(/\./g, '\\.')} ${file.replace(/\./g, '\\.')}$`, 'm'), `COPY ${file}`)
    const ignored = read('.dockerignore').split('\n').map((line) => line.trim())
    if (ignored.includes(file.split('/')[0]!)) t.ok(ignored.includes(`!${file}`), `.dockerignore lets ${file} into the build context`)
  }
})

/** Whether an `engines.node` range admits some Node 20 release: a clause `>=N` with N at most 20, or one of major 20. */
function admitsNode20 (range: string): boolean {
  return range.split('||').some((clause) => {
    const [, operator, major] = /^\s*(>=|>|\^|~)?\s*v?(\d+)/.exec(clause) ?? []
    if (major === undefined) return true
    return operator === '>=' || operator === '>' ? Number(major) <= 20 : Number(major) === 20
  })
}

t.test('the README names every installed package whose engines leave Node 20 out: npm warns EBADENGINE for each there', async (t) => {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { name?: string, engines?: unknown }> }
  const leavingOut = Object.entries(lock.packages)
    .filter(([, entry]) => typeof entry.engines === 'object' && entry.engines !== null && typeof (entry.engines as { node?: unknown }).node === 'string' &&
      !admitsNode20((entry.engines as { node: string }).node))
    .map(([path, entry]) => path === '' ? entry.name ?? '' : path.replace(/^.*node_modules\//, ''))
  t.ok(leavingOut.includes('threshold'), `the project itself (${leavingOut.join(', ')})`)
  const paragraph = /\*\*What `npm install` prints\.\*\*[^\n]*(\n[^\n]+)*/.exec(read('README.md'))?.[0] ?? ''
  const said = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 }[/EBADENGINE Unsupported engine` (\w+) times/.exec(paragraph)?.[1] ?? ''] ?? 0
  t.equal(said, leavingOut.length, 'as many warnings as the README says')
  for (const name of leavingOut) t.match(paragraph, `\`${name}\``, `the README names ${name}`)
  t.ok(admitsNode20('^20.17.0 || >=22.9.0') && admitsNode20('>=18') && !admitsNode20('>=22.14') && !admitsNode20('>=22'), 'the range reading')
})
