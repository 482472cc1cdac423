// build.mjs, the build's modules in build/ and the benchmark scripts are JavaScript that
// Node runs as it is: their types are their JSDoc, which two projects of
// npm run typecheck check as strictly as the TypeScript (docs/development.md).
import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'

const ROOT = new URL('../../', import.meta.url)
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8')

interface TsConfig {
  compilerOptions: { allowJs?: boolean, checkJs?: boolean, strict?: boolean }
  include: string[]
}

/** A tsconfig of ours (whole-line comments only). */
const tsconfig = (path: string): TsConfig =>
  JSON.parse(read(path).split('\n').filter((line) => !line.trim().startsWith('//')).join('\n')) as TsConfig

t.test('npm run typecheck checks build/ and bench/ from their JSDoc', async (t) => {
  const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> }
  t.equal(tsconfig('tsconfig.json').compilerOptions.strict, true, 'the projects extend a strict tsconfig.json')
  for (const folder of ['build', 'bench']) {
    t.match(scripts.typecheck, new RegExp(`-p ${folder}\\b`), `npm run typecheck checks ${folder}/`)
    const { compilerOptions, include } = tsconfig(`${folder}/tsconfig.json`)
    t.same([compilerOptions.allowJs, compilerOptions.checkJs], [true, true], `${folder}/tsconfig.json checks JavaScript`)
    t.ok(include.includes('.'), `${folder}/tsconfig.json checks its folder`)
  }
  t.ok(tsconfig('build/tsconfig.json').include.includes('../build.mjs'), 'build.mjs itself, the entry at the root')
})

t.test('no hand-written declaration stands in for the build\'s JavaScript', async (t) => {
  const declarations = ['.', 'build'].flatMap((folder) =>
    readdirSync(new URL(`${folder}/`, ROOT)).filter((name) => /\.d\.[cm]?ts$/.test(name)).map((name) => `${folder}/${name}`))
  t.same(declarations, [])
})
