// Comments and docs point only at what a reader can open: every repository
// path a comment or a document names must exist, and every `docs/….md#section`
// must name a heading of that document. A file moved or renamed without its
// mentions fails here, not in a reader's hands.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** Where the code and documents a reader follows live (generated and installed folders are not walked). */
const WALKED = ['.ci', 'bench', 'build', 'client', 'common', 'conformance', 'deploy', 'docs', 'examples', 'monitoring', 'proto', 'server', 'test']
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'generated'])
const TOP_LEVEL_DOCUMENTS = ['README.md', 'Dockerfile', 'build.mjs']

/** The repository's folders a path in a comment can start with. */
const PATH = /(?<![\w./-])((?:\.ci|bench|build|client|common|conformance|deploy|docs|examples|monitoring|proto|server|test)\/[\w./-]*[\w-])(#[\w-]+)?/g

const CODE = /\.(?:ts|tsx|mts|mjs|js|cjs|sh|conf|ya?ml|proto)$/

function walk (folder: string, found: string[]): string[] {
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) walk(path, found)
    } else {
      found.push(path)
    }
  }
  return found
}

/** The paths a line names; a glob (`test/e2e/server-rendered-*.test.ts`) names none. */
function pathsIn (text: string): Array<{ path: string, section: string | undefined }> {
  return [...text.matchAll(PATH)]
    .filter((match) => text[match.index + match[0].length] !== '*')
    .map((match) => ({ path: match[1]!.replace(/\.$/, ''), section: match[2] }))
}

/** A file's comment lines (all of a Markdown file), with their line numbers. */
function commentLines (path: string): Array<{ line: number, text: string }> {
  const text = readFileSync(join(ROOT, path), 'utf8')
  const markdown = path.endsWith('.md')
  const script = path.startsWith('.ci/') || path === 'Dockerfile'
  if (!markdown && !script && !CODE.test(path)) return []
  return text.split('\n').flatMap((line, index) => {
    const trimmed = line.trim()
    const comment = markdown || /^(?:\/\/|\/\*|\*|#)/.test(trimmed) || line.includes(' // ')
    return comment ? [{ line: index + 1, text: markdown ? line : line.slice(line.search(/\/\/|\/\*|\*|#/)) }] : []
  })
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf (heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
}

const anchorsByDocument = new Map<string, Set<string>>()
function anchorsOf (document: string): Set<string> {
  let anchors = anchorsByDocument.get(document)
  if (anchors === undefined) {
    let fenced = false
    const headings = readFileSync(join(ROOT, document), 'utf8').split('\n').filter((line) => {
      if (line.startsWith('```')) fenced = !fenced
      return !fenced && /^#{1,6} /.test(line)
    })
    anchors = new Set()
    for (const heading of headings) {
      const base = anchorOf(heading.replace(/^#+ /, ''))
      let anchor = base
      for (let repeat = 1; anchors.has(anchor); repeat++) anchor = `${base}-${repeat}`
      anchors.add(anchor)
    }
    anchorsByDocument.set(document, anchors)
  }
  return anchors
}

const files = [...TOP_LEVEL_DOCUMENTS, ...WALKED.filter((folder) => existsSync(join(ROOT, folder))).flatMap((folder) => walk(folder, []))]

t.test('every repository path a comment or a document names exists', async (t) => {
  const missing: string[] = []
  let named = 0
  for (const file of files) {
    for (const { line, text } of commentLines(file)) {
      for (const { path } of pathsIn(text)) {
        named++
        if (!existsSync(join(ROOT, path))) missing.push(`${file}:${line} names ${path}`)
      }
    }
  }
  t.ok(named > 100, `the scan finds the paths comments name (${named})`)
  t.same(missing, [], 'no comment names a path that does not exist')
})

t.test('every docs section a comment or a document names is a heading of that document', async (t) => {
  const missing: string[] = []
  for (const file of files) {
    for (const { line, text } of commentLines(file)) {
      for (const { path, section } of pathsIn(text)) {
        if (section === undefined || !path.endsWith('.md') || !existsSync(join(ROOT, path))) continue
        if (!anchorsOf(path).has(section.slice(1))) missing.push(`${file}:${line} names ${path}${section}`)
      }
    }
  }
  t.same(missing, [], 'no comment names a section that is not there')
})

t.test('every link between the documents leads to a document and a heading that exist', async (t) => {
  const broken: string[] = []
  let links = 0
  for (const file of files.filter((path) => path.endsWith('.md'))) {
    readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((text, index) => {
      for (const match of text.matchAll(/\]\((?![a-z]+:)([^)#\s]*)(#[^)\s]+)?\)/g)) {
        const [, target, section] = match
        const document = target === '' ? file : join(dirname(file), target!)
        links++
        if (!existsSync(join(ROOT, document))) {
          broken.push(`${file}:${index + 1} links to ${target}`)
        } else if (section !== undefined && document.endsWith('.md') && !anchorsOf(document).has(section.slice(1))) {
          broken.push(`${file}:${index + 1} links to ${target}${section}`)
        }
      }
    })
  }
  t.ok(links > 100, `the scan finds the documents' links (${links})`)
  t.same(broken, [], 'no link is broken')
})

t.test('the anchor rule matches GitHub\'s for the headings the docs use', async (t) => {
  t.equal(anchorOf('One clock: machines whose clocks differ'), 'one-clock-machines-whose-clocks-differ')
  t.equal(anchorOf('Rolling restarts'), 'rolling-restarts')
  t.equal(anchorOf('`DRAIN_SECONDS` and the drain'), 'drain_seconds-and-the-drain')
})
